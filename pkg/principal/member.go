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

// MemberRole is what a member of a lender's organization may do from the
// dashboard. It is a separate type from the staff Role: the two
// identities never stand in for each other.
type MemberRole string

// Member roles, most powerful first.
const (
	// MemberOwner does everything, including making or removing admins
	// and owners. An organization always keeps at least one owner.
	MemberOwner MemberRole = "owner"
	// MemberAdmin manages members (not owners), the plan, keys and
	// webhooks, and reads the audit log.
	MemberAdmin MemberRole = "admin"
	// MemberDeveloper manages keys and webhooks and works with customers,
	// but not the plan or members.
	MemberDeveloper MemberRole = "developer"
	// MemberViewer reads, and never sees key material or webhook secrets.
	MemberViewer MemberRole = "viewer"
)

// MemberRoles lists every member role, most powerful first.
var MemberRoles = []MemberRole{MemberOwner, MemberAdmin, MemberDeveloper, MemberViewer}

// Valid reports whether r is a known member role.
func (r MemberRole) Valid() bool { return slices.Contains(MemberRoles, r) }

// AtLeast reports whether r is min or more powerful.
func (r MemberRole) AtLeast(min MemberRole) bool {
	i, j := slices.Index(MemberRoles, r), slices.Index(MemberRoles, min)
	return i >= 0 && j >= 0 && i <= j
}

// IsMember reports whether p is a person of an organization calling from
// the dashboard (as opposed to the organization's API key).
func (p Principal) IsMember() bool { return p.Kind == KindAPIKey && p.UserID != "" }

// CheckMemberRole returns nil when ctx's caller may act as min: a
// dashboard member holding min or a more powerful role, or one of the
// organization's API keys when keysAllowed (keys act for the
// organization's back-end, which manages its own webhooks but never
// members or the plan). Anything else is a 403 ROLE_REQUIRED.
func CheckMemberRole(ctx context.Context, min MemberRole, keysAllowed bool) error {
	p, ok := From(ctx)
	switch {
	case ok && p.IsMember() && p.MemberRole.AtLeast(min):
		return nil
	case ok && p.Kind == KindAPIKey && p.UserID == "" && keysAllowed:
		return nil
	}
	var names []string
	for _, r := range MemberRoles {
		if r.AtLeast(min) {
			names = append(names, string(r))
		}
	}
	return apperr.New(apperr.KindForbidden, CodeRoleRequired,
		"This needs the "+strings.Join(names, ", ")+" role in your organization")
}

// RequireMemberRole wraps next so that it only runs for a caller that
// CheckMemberRole lets through.
func RequireMemberRole(log *slog.Logger, min MemberRole, keysAllowed bool) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if err := CheckMemberRole(r.Context(), min, keysAllowed); err != nil {
				envelope.Fail(r.Context(), w, log, err)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}
