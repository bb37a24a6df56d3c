package httpapi

import (
	"context"
	"crypto/subtle"
	"log/slog"
	"net/http"
	"time"

	"github.com/go-kit/kit/endpoint"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/envelope"
	"github.com/kycfield/kyc/pkg/jsonbody"
	"github.com/kycfield/kyc/pkg/kitserver"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/services/auth-billing/internal/account"
)

// Dashboard cookie and header names.
const (
	SessionCookie = "kyc_session"
	CSRFHeader    = "X-CSRF-Token"
)

// DashboardOptions configure the dashboard transport.
type DashboardOptions struct {
	// SecureCookies sets the Secure flag (off only for local http runs).
	SecureCookies bool
}

type sessionKey struct{}

func sessionFrom(ctx context.Context) account.Session {
	s, _ := ctx.Value(sessionKey{}).(account.Session)
	return s
}

// RegisterDashboard mounts /dashboard/v1 on mux. Every route requires a
// gateway-vouched edge principal and refuses cross-origin browser
// requests; routes behind a session also require the session's CSRF
// token on every state-changing call.
func RegisterDashboard(mux *http.ServeMux, d *account.Dashboard, e Endpoints, protect Protector, opt DashboardOptions, log *slog.Logger) {
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		envelope.Fail(r.Context(), w, log, apperr.New(apperr.KindForbidden, account.CodeCrossOrigin,
			"Cross-origin browser requests to the dashboard API are refused"))
	}))
	edge := func(h http.Handler) http.Handler { return protect(cop.Handler(h), principal.KindEdge) }
	authed := func(h http.Handler) http.Handler { return edge(requireSession(d, log, h)) }
	s := func(ep endpoint.Endpoint, dec func(context.Context, *http.Request) (any, error)) http.Handler {
		return kitserver.NewServer(ep, dec, log)
	}
	orgOf := func(r *http.Request) string { return sessionFrom(r.Context()).OrgID }
	sessionOrg := func(_ context.Context, r *http.Request) (any, error) { return orgRequest{OrgID: orgOf(r)}, nil }

	mux.Handle("POST /dashboard/v1/signup", edge(s(signUpEndpoint(d, opt), decodeSignUp)))
	mux.Handle("POST /dashboard/v1/login", edge(s(logInEndpoint(d, opt), decodeLogIn)))
	mux.Handle("POST /dashboard/v1/logout", authed(s(logOutEndpoint(d, opt), decodeCookie)))
	mux.Handle("GET /dashboard/v1/me", authed(s(meEndpoint(d), decodeCookie)))
	mux.Handle("GET /dashboard/v1/keys", authed(s(e.ListKeys, sessionOrg)))
	mux.Handle("POST /dashboard/v1/keys", authed(s(e.CreateKey, decodeCreateKey(orgOf))))
	mux.Handle("POST /dashboard/v1/keys/{id}/revoke", authed(s(e.RevokeKey, func(_ context.Context, r *http.Request) (any, error) {
		return keyRequest{OrgID: orgOf(r), KeyID: r.PathValue("id")}, nil
	})))
	mux.Handle("POST /dashboard/v1/keys/{id}/roll", authed(s(e.RollKey, decodeRoll(orgOf))))
	mux.Handle("GET /dashboard/v1/plan", authed(s(e.GetOrg, sessionOrg)))
	mux.Handle("PUT /dashboard/v1/plan", authed(s(e.ChangePlan, decodeChangePlan(orgOf))))
	mux.Handle("GET /dashboard/v1/usage", authed(s(e.Usage, func(_ context.Context, r *http.Request) (any, error) {
		return usageRequest{OrgID: orgOf(r), Month: r.URL.Query().Get("month")}, nil
	})))
}

// requireSession authenticates the session cookie and, for methods that
// change state, the CSRF token header.
func requireSession(d *account.Dashboard, log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var token string
		if c, err := r.Cookie(SessionCookie); err == nil {
			token = c.Value
		}
		sess, err := d.Authenticate(r.Context(), token)
		if err != nil {
			envelope.Fail(r.Context(), w, log, err)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead &&
			subtle.ConstantTimeCompare([]byte(r.Header.Get(CSRFHeader)), []byte(sess.CSRFToken)) != 1 {
			envelope.Fail(r.Context(), w, log, apperr.New(apperr.KindForbidden, account.CodeCSRF,
				"Missing or invalid "+CSRFHeader+" header; use the csrfToken returned at log-in"))
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), sessionKey{}, sess)))
	})
}

type signUpRequest struct{ OrgName, Email, Password string }
type logInRequest struct{ Email, Password, ClientIP string }
type cookieRequest struct{ Token string }

func decodeSignUp(_ context.Context, r *http.Request) (any, error) {
	b, err := jsonbody.Read(r, maxBody)
	if err != nil {
		return nil, err
	}
	b.RejectUnknown("organizationName", "email", "password")
	org, _ := b.String("organizationName")
	email, _ := b.String("email")
	pw, _ := b.String("password")
	if errs := b.Errors(); len(errs) > 0 {
		return nil, apperr.Validation(errs...)
	}
	return signUpRequest{OrgName: org, Email: email, Password: pw}, nil
}

func decodeLogIn(ctx context.Context, r *http.Request) (any, error) {
	b, err := jsonbody.Read(r, maxBody)
	if err != nil {
		return nil, err
	}
	b.RejectUnknown("email", "password")
	email, _ := b.String("email")
	pw, _ := b.String("password")
	if errs := b.Errors(); len(errs) > 0 {
		return nil, apperr.Validation(errs...)
	}
	p, _ := principal.From(ctx)
	return logInRequest{Email: email, Password: pw, ClientIP: p.ClientIP}, nil
}

func decodeCookie(_ context.Context, r *http.Request) (any, error) {
	c, err := r.Cookie(SessionCookie)
	if err != nil {
		return cookieRequest{}, nil
	}
	return cookieRequest{Token: c.Value}, nil
}

func sessionCookie(token string, expires time.Time, opt DashboardOptions) *http.Cookie {
	c := &http.Cookie{Name: SessionCookie, Value: token, Path: "/dashboard", HttpOnly: true,
		Secure: opt.SecureCookies, SameSite: http.SameSiteLaxMode, Expires: expires}
	if token == "" {
		c.MaxAge = -1
	}
	return c
}

func loginView(l account.Login) map[string]any {
	return map[string]any{
		"user":         map[string]any{"id": l.User.ID, "email": l.User.Email, "createdAt": envelope.Timestamp(l.User.CreatedAt)},
		"organization": orgView(l.Org),
		"csrfToken":    l.CSRF,
		"expiresAt":    envelope.Timestamp(l.Expires),
	}
}

func signUpEndpoint(d *account.Dashboard, opt DashboardOptions) endpoint.Endpoint {
	return func(ctx context.Context, req any) (any, error) {
		r := req.(signUpRequest)
		l, err := d.SignUp(ctx, r.OrgName, r.Email, r.Password)
		if err != nil {
			return nil, err
		}
		return kitserver.Result{Status: http.StatusCreated, Message: "Account created", Data: loginView(l),
			Cookies: []*http.Cookie{sessionCookie(l.Token, l.Expires, opt)}}, nil
	}
}

func logInEndpoint(d *account.Dashboard, opt DashboardOptions) endpoint.Endpoint {
	return func(ctx context.Context, req any) (any, error) {
		r := req.(logInRequest)
		l, err := d.LogIn(ctx, r.Email, r.Password, r.ClientIP)
		if err != nil {
			return nil, err
		}
		return kitserver.Result{Message: "Logged in", Data: loginView(l), Cookies: []*http.Cookie{sessionCookie(l.Token, l.Expires, opt)}}, nil
	}
}

func logOutEndpoint(d *account.Dashboard, opt DashboardOptions) endpoint.Endpoint {
	return func(ctx context.Context, req any) (any, error) {
		if err := d.LogOut(ctx, req.(cookieRequest).Token); err != nil {
			return nil, err
		}
		return kitserver.Result{Message: "Logged out", Data: map[string]any{"loggedOut": true},
			Cookies: []*http.Cookie{sessionCookie("", time.Unix(0, 0), opt)}}, nil
	}
}

func meEndpoint(d *account.Dashboard) endpoint.Endpoint {
	return func(ctx context.Context, _ any) (any, error) {
		s := sessionFrom(ctx)
		u, o, err := d.Me(ctx, s)
		if err != nil {
			return nil, err
		}
		return kitserver.Result{Message: "Session retrieved", Data: map[string]any{
			"user":         map[string]any{"id": u.ID, "email": u.Email, "createdAt": envelope.Timestamp(u.CreatedAt)},
			"organization": orgView(o), "csrfToken": s.CSRFToken, "expiresAt": envelope.Timestamp(s.ExpiresAt),
			"plans": account.Plans,
		}}, nil
	}
}
