package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/kycfield/kyc/pkg/apikey"
	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/envelope"
	"github.com/kycfield/kyc/pkg/jsonbody"
	"github.com/kycfield/kyc/pkg/kitserver"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/services/auth-billing/internal/account"
)

// Dashboard cookie and header names, shared with the gateway.
const (
	SessionCookie = apikey.SessionCookie
	CSRFHeader    = apikey.CSRFHeader
)

// DashboardOptions configure the dashboard transport.
type DashboardOptions struct {
	// SecureCookies sets the Secure flag (off only for local http runs).
	SecureCookies bool
	// PublicURL is the gateway as people reach it; invitation links point
	// at its /dashboard/ page.
	PublicURL string
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
	// role is authed for members holding min or more; a refusal is
	// audited as an attempt at action (on the path's id, if any).
	role := func(min principal.MemberRole, action string, h http.Handler) http.Handler {
		return authed(requireRole(d, log, min, action, h))
	}
	orgOf := func(r *http.Request) string { return sessionFrom(r.Context()).OrgID }

	mux.Handle("POST /dashboard/v1/signup", edge(kitserver.NewHandler(signUpEndpoint(d, opt), decodeSignUp, log)))
	mux.Handle("POST /dashboard/v1/login", edge(kitserver.NewHandler(logInEndpoint(d, opt), decodeLogIn, log)))
	mux.Handle("POST /dashboard/v1/logout", authed(kitserver.NewHandler(logOutEndpoint(d, opt), decodeCookie, log)))
	mux.Handle("GET /dashboard/v1/me", authed(kitserver.NewHandler(meEndpoint(d), decodeCookie, log)))
	mux.Handle("POST /dashboard/v1/totp", authed(kitserver.NewHandler(enrolTOTPEndpoint(d), decodeCookie, log)))
	mux.Handle("POST /dashboard/v1/totp/confirm", authed(kitserver.NewHandler(confirmTOTPEndpoint(d), decodeTOTPCode, log)))
	mux.Handle("POST /dashboard/v1/totp/disable", authed(kitserver.NewHandler(disableTOTPEndpoint(d), decodeTOTPCode, log)))
	// Keys (their list too: a viewer never sees key prefixes) are for
	// developers and up; the plan is changed by admins and up.
	dev, admin := principal.MemberDeveloper, principal.MemberAdmin
	mux.Handle("GET /dashboard/v1/keys", role(dev, "key.list", kitserver.NewHandler(e.ListKeys, decodeOrg(orgOf), log)))
	mux.Handle("POST /dashboard/v1/keys", role(dev, "key.create", kitserver.NewHandler(e.CreateKey, decodeCreateKey(orgOf), log)))
	mux.Handle("POST /dashboard/v1/keys/{id}/revoke", role(dev, "key.revoke", kitserver.NewHandler(e.RevokeKey, decodeKey(orgOf), log)))
	mux.Handle("POST /dashboard/v1/keys/{id}/roll", role(dev, "key.roll", kitserver.NewHandler(e.RollKey, decodeRoll(orgOf), log)))
	mux.Handle("GET /dashboard/v1/plan", authed(kitserver.NewHandler(e.GetOrg, decodeOrg(orgOf), log)))
	mux.Handle("PUT /dashboard/v1/plan", role(admin, "plan.change", kitserver.NewHandler(e.ChangePlan, decodeChangePlan(orgOf), log)))
	mux.Handle("GET /dashboard/v1/plan/preview", authed(kitserver.NewHandler(e.PlanPreview, decodePlanPreview(orgOf), log)))
	mux.Handle("GET /dashboard/v1/usage", authed(kitserver.NewHandler(e.Usage, decodeUsage(orgOf), log)))
	registerTeam(mux, d, edge, authed, role, opt, log)
	mux.Handle("POST "+apikey.SessionResolvePath, protect(kitserver.NewHandler(resolveSessionEndpoint(d), decodeResolveSession, log), principal.KindGateway))
}

type resolveSessionRequest struct {
	Token string `json:"token" required:"is required"`
	CSRF  string `json:"csrfToken"`
}

func decodeResolveSession(_ context.Context, r *http.Request) (resolveSessionRequest, error) {
	var req resolveSessionRequest
	return req, jsonbody.ReadInto(r, maxBody, &req)
}

// resolveSessionEndpoint answers the gateway's check of a session calling
// the public API: 401 SESSION_REQUIRED, 403 CSRF_TOKEN_INVALID, or the
// session and its organization.
func resolveSessionEndpoint(d *account.Dashboard) kitserver.Endpoint[resolveSessionRequest] {
	return kitserver.NewEndpoint(func(ctx context.Context, r resolveSessionRequest) (kitserver.Result, error) {
		s, o, err := d.ResolveSession(ctx, r.Token, r.CSRF)
		return kitserver.Result{Message: "Session resolved", Data: resolvedSessionView{
			Session:      apikey.SessionState{UserID: s.UserID, OrgID: s.OrgID, Role: s.Role, ExpiresAt: s.ExpiresAt},
			Organization: o,
		}}, err
	})
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
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			if err := sess.CheckCSRF(r.Header.Get(CSRFHeader)); err != nil {
				envelope.Fail(r.Context(), w, log, err)
				return
			}
		}
		ctx := context.WithValue(r.Context(), sessionKey{}, sess)
		ctx = account.WithActor(ctx, account.Actor{UserID: sess.UserID, OrgID: sess.OrgID, Role: sess.Role, IP: clientIP(ctx)})
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// requireRole lets the session's member through when they hold min or a
// more powerful role; otherwise the attempt is audited as refused and
// answered 403 ROLE_REQUIRED. It runs inside requireSession, so the role
// is the one read with the session on this request.
func requireRole(d *account.Dashboard, log *slog.Logger, min principal.MemberRole, action string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a, _ := account.ActorFrom(r.Context())
		if err := d.Authorize(r.Context(), a, min, action, r.PathValue("id")); err != nil {
			envelope.Fail(r.Context(), w, log, err)
			return
		}
		next.ServeHTTP(w, r)
	})
}

type signUpRequest struct {
	OrgName  string `json:"organizationName"`
	Email    string `json:"email"`
	Password string `json:"password"`
}
type logInRequest struct {
	Email    string `json:"email"`
	Password string `json:"password"`
	// OTP is the authenticator app's code, for users with TOTP on.
	OTP      string `json:"otp"`
	ClientIP string `json:"-"`
}
type cookieRequest struct{ Token string }

func decodeSignUp(_ context.Context, r *http.Request) (signUpRequest, error) {
	var req signUpRequest
	return req, jsonbody.ReadInto(r, maxBody, &req)
}

func decodeLogIn(ctx context.Context, r *http.Request) (logInRequest, error) {
	var req logInRequest
	if err := jsonbody.ReadInto(r, maxBody, &req); err != nil {
		return req, err
	}
	p, _ := principal.From(ctx)
	req.ClientIP = p.ClientIP
	return req, nil
}

func decodeCookie(_ context.Context, r *http.Request) (cookieRequest, error) {
	c, err := r.Cookie(SessionCookie)
	if err != nil {
		return cookieRequest{}, nil
	}
	return cookieRequest{Token: c.Value}, nil
}

func sessionCookie(token string, expires time.Time, opt DashboardOptions) *http.Cookie {
	// Path "/": the dashboard page also calls /api/v1 with it (the gateway
	// requires the CSRF header there on every request).
	c := &http.Cookie{Name: SessionCookie, Value: token, Path: "/", HttpOnly: true,
		Secure: opt.SecureCookies, SameSite: http.SameSiteLaxMode, Expires: expires}
	if token == "" {
		c.MaxAge = -1
	}
	return c
}

func signUpEndpoint(d *account.Dashboard, opt DashboardOptions) kitserver.Endpoint[signUpRequest] {
	return kitserver.NewEndpoint(func(ctx context.Context, r signUpRequest) (kitserver.Result, error) {
		l, err := d.SignUp(ctx, r.OrgName, r.Email, r.Password)
		if err != nil {
			return kitserver.Result{}, err
		}
		return kitserver.Result{Status: http.StatusCreated, Message: "Account created", Data: viewLogin(l),
			Cookies: []*http.Cookie{sessionCookie(l.Token, l.Expires, opt)}}, nil
	})
}

func logInEndpoint(d *account.Dashboard, opt DashboardOptions) kitserver.Endpoint[logInRequest] {
	return kitserver.NewEndpoint(func(ctx context.Context, r logInRequest) (kitserver.Result, error) {
		l, err := d.LogIn(ctx, r.Email, r.Password, r.OTP, r.ClientIP)
		if err != nil {
			return kitserver.Result{}, err
		}
		return kitserver.Result{Message: "Logged in", Data: viewLogin(l), Cookies: []*http.Cookie{sessionCookie(l.Token, l.Expires, opt)}}, nil
	})
}

func logOutEndpoint(d *account.Dashboard, opt DashboardOptions) kitserver.Endpoint[cookieRequest] {
	return kitserver.NewEndpoint(func(ctx context.Context, r cookieRequest) (kitserver.Result, error) {
		if err := d.LogOut(ctx, r.Token); err != nil {
			return kitserver.Result{}, err
		}
		return kitserver.Result{Message: "Logged out", Data: loggedOutView{LoggedOut: true},
			Cookies: []*http.Cookie{sessionCookie("", time.Unix(0, 0), opt)}}, nil
	})
}

// meEndpoint answers from the session requireSession put on ctx.
func meEndpoint(d *account.Dashboard) kitserver.Endpoint[cookieRequest] {
	return kitserver.NewEndpoint(func(ctx context.Context, _ cookieRequest) (kitserver.Result, error) {
		s := sessionFrom(ctx)
		u, o, err := d.Me(ctx, s)
		if err != nil {
			return kitserver.Result{}, err
		}
		return kitserver.Result{Message: "Session retrieved", Data: viewMe(u, o, s)}, nil
	})
}
