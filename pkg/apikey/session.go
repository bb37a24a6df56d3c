package apikey

import (
	"time"

	"github.com/kycfield/kyc/pkg/principal"
)

// A dashboard user can call the public API (/api/v1) from the dashboard
// page instead of with a key: the session cookie auth-billing sets at
// log-in, the session's CSRF token in a header on every request (reads
// too, so a cookie alone can neither change nor read anything), and the
// environment the page has chosen. The gateway checks the three with
// auth-billing and then treats the request exactly as a key's: same
// handlers, same responses, same quota.
const (
	SessionCookie     = "kyc_session"
	CSRFHeader        = "X-CSRF-Token"
	EnvironmentHeader = "KYC-Environment"
)

// SessionResolvePath is auth-billing's internal endpoint that checks a
// session token and its CSRF token (gateway principals only).
const SessionResolvePath = "/internal/v1/sessions/resolve"

// Error codes of dashboard sessions, shared by auth-billing and the gateway.
const (
	CodeSessionRequired = "SESSION_REQUIRED"
	CodeCSRF            = "CSRF_TOKEN_INVALID"
)

// SessionState is what SessionResolvePath answers: who is logged in, and
// their organization as a key resolve would give it.
type SessionState struct {
	UserID string `json:"userId"`
	OrgID  string `json:"orgId"`
	// Role is the user's role in the organization as of this request
	// (never cached with the session): the gateway gives a viewer read
	// scope only.
	Role      principal.MemberRole `json:"role"`
	ExpiresAt time.Time            `json:"expiresAt"`
}
