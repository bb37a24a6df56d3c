package principal

import (
	"context"
	"log/slog"
	"net/http"
	"slices"
	"strings"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/envelope"
)

// Role is what a member of the operations staff may do. Roles do not
// nest: an admin who also reviews holds the reviewer role too, by design
// a separate account (the audit log then says which hat made a decision).
type Role string

// Staff roles.
const (
	// RoleAdmin manages staff accounts and organizations' review policy
	// and SLA target.
	RoleAdmin Role = "admin"
	// RoleDispatcher manages agents, coverage and assignment.
	RoleDispatcher Role = "dispatcher"
	// RoleReviewer decides held results.
	RoleReviewer Role = "reviewer"
)

// Roles lists every staff role.
var Roles = []Role{RoleAdmin, RoleDispatcher, RoleReviewer}

// Valid reports whether r is a known role.
func (r Role) Valid() bool { return slices.Contains(Roles, r) }

// Staff sessions: an HttpOnly cookie scoped to the console's paths and,
// on every request, the session's CSRF token in CSRFHeader (the same
// header name as the dashboard's; the cookie and the session store are
// separate, so a lender's session can never be a staff session).
const (
	StaffCookie = "kyc_staff"
	// StaffCookiePath keeps the cookie off every other path.
	StaffCookiePath = "/ops"
	// StaffResolvePath is auth-billing's internal endpoint that checks a
	// staff session token and its CSRF token (gateway principals only).
	// It answers 200 with {"staff": StaffState}, 401 for no live
	// session, 403 for a wrong CSRF token.
	StaffResolvePath = "/internal/v1/staff/sessions/resolve"
)

// StaffState is who a live staff session belongs to.
type StaffState struct {
	ID    string `json:"id"`
	Email string `json:"email"`
	Name  string `json:"name"`
	Role  Role   `json:"role"`
}

// CodeRoleRequired is the error code of a staff request refused for its
// role.
const CodeRoleRequired = "ROLE_REQUIRED"

// CheckRole returns nil when ctx carries a staff principal holding one
// of roles, and a 403 ROLE_REQUIRED otherwise.
func CheckRole(ctx context.Context, roles ...Role) error {
	p, ok := From(ctx)
	if ok && p.Kind == KindStaff && slices.Contains(roles, p.Role) {
		return nil
	}
	names := make([]string, len(roles))
	for i, r := range roles {
		names[i] = string(r)
	}
	return apperr.New(apperr.KindForbidden, CodeRoleRequired, "This needs the "+strings.Join(names, " or ")+" role")
}

// RequireRole wraps next so that it only runs for a staff principal
// (put in the context by Require) holding one of roles.
func RequireRole(log *slog.Logger, roles ...Role) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if err := CheckRole(r.Context(), roles...); err != nil {
				envelope.Fail(r.Context(), w, log, err)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}
