package edge

import (
	"context"
	"errors"
	"net/http"

	"github.com/kycfield/kyc/gateway/internal/keys"
	"github.com/kycfield/kyc/gateway/internal/routes"
	"github.com/kycfield/kyc/pkg/apikey"
	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/principal"
)

// Sessions checks a dashboard session calling the public API
// (keys.AuthBilling in production).
type Sessions interface {
	ResolveSession(ctx context.Context, token, csrf string) (apikey.SessionState, keys.OrgState, error)
}

var (
	errNoSession = apperr.New(apperr.KindUnauthorized, apikey.CodeSessionRequired, "Log in to the dashboard first")
	errCSRF      = apperr.New(apperr.KindForbidden, apikey.CodeCSRF,
		"Missing or invalid "+apikey.CSRFHeader+" header; use the csrfToken returned at log-in")
	errNoEnv = apperr.Validation(apperr.Detail{Field: apikey.EnvironmentHeader, Message: "must be test or live"})
)

// memberScopes are what a dashboard member's role allows on the public
// API: a viewer reads; developers, admins and owners read and write. A
// session without a known role (an auth-billing from before roles) only
// reads: the server side of a role check fails closed.
func memberScopes(r principal.MemberRole) []string {
	if r.Valid() && r.AtLeast(principal.MemberDeveloper) {
		return []string{principal.ScopeRead, principal.ScopeWrite}
	}
	return []string{principal.ScopeRead}
}

// Refusals records the requests refused to a member for their role
// (refusal.Recorder in production).
type Refusals interface {
	Refused(ctx context.Context, p principal.Principal, action, method, path string)
}

// sessionToken returns the dashboard session cookie of a request that
// carries no Authorization header: a key, when present, always wins.
func sessionToken(r *http.Request) (string, bool) {
	if r.Header.Get("Authorization") != "" {
		return "", false
	}
	c, err := r.Cookie(apikey.SessionCookie)
	if err != nil || c.Value == "" {
		return "", false
	}
	return c.Value, true
}

// sessionCaller authenticates a dashboard session: a live session, its
// CSRF token on every request (reads included), and the environment the
// page has chosen.
func (g *Gateway) sessionCaller(w http.ResponseWriter, r *http.Request, token string) (caller, bool) {
	if g.opt.Sessions == nil {
		g.fail(w, r, errMissingKey)
		return caller{}, false
	}
	s, org, err := g.opt.Sessions.ResolveSession(r.Context(), token, r.Header.Get(apikey.CSRFHeader))
	switch {
	case errors.Is(err, keys.ErrNoSession):
		g.fail(w, r, errNoSession)
		return caller{}, false
	case errors.Is(err, keys.ErrCSRF):
		g.fail(w, r, errCSRF)
		return caller{}, false
	case err != nil:
		g.fail(w, r, apperr.Unavailable("Authentication", err))
		return caller{}, false
	}
	env := principal.Env(r.Header.Get(apikey.EnvironmentHeader))
	if !env.Valid() {
		g.fail(w, r, errNoEnv)
		return caller{}, false
	}
	role := s.Role
	if !role.Valid() {
		role = ""
	}
	return caller{plan: org.Plan, p: principal.Principal{Kind: principal.KindAPIKey, OrgID: s.OrgID, Env: env, UserID: s.UserID,
		MemberRole: role, Scopes: memberScopes(role), Plan: org.Plan.ID, RecordLimit: org.Plan.TestRecordLimit, ClientIP: g.clientIP(r)}}, true
}

// refuseMember answers a member whose role lacks the route's scope: the
// attempt goes to the organization's audit log first, under the route's
// Action (the name its service gives the change, so one filter finds
// both; synchronously, a failed write is only logged), then 403
// ROLE_REQUIRED, worded as the services word it.
func (g *Gateway) refuseMember(w http.ResponseWriter, r *http.Request, rt routes.Route, p principal.Principal) {
	if g.opt.Refusals != nil {
		g.opt.Refusals.Refused(r.Context(), p, rt.Action, rt.Method, r.URL.Path)
	}
	err := principal.CheckMemberRole(principal.With(r.Context(), p), principal.MemberDeveloper, false)
	if err == nil { // a role that has the scope never gets here
		err = apperr.New(apperr.KindForbidden, principal.CodeRoleRequired, "Your role in this organization does not allow this")
	}
	g.fail(w, r, err)
}
