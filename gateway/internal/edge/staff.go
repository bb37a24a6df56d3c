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

// Staff checks an operations staff session (keys.AuthBilling in
// production).
type Staff interface {
	ResolveStaff(ctx context.Context, token, csrf string) (principal.StaffState, error)
}

// CodeStaffSessionRequired is the code of a console request without a
// live staff session: an API key or a lender's session never counts.
const CodeStaffSessionRequired = "STAFF_SESSION_REQUIRED"

var errNoStaff = apperr.New(apperr.KindUnauthorized, CodeStaffSessionRequired, "Sign in to the operations console first")

// staff serves a console route: only a staff session cookie, with its
// CSRF token on every request, reaches the service, as a staff
// principal. An Authorization header (an API key, an agent's token) is
// not even looked at, and the lender's dashboard cookie has another
// name and another session store.
func (g *Gateway) staff(rt routes.Route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := r.Cookie(principal.StaffCookie)
		if err != nil || c.Value == "" || g.opt.Staff == nil {
			g.fail(w, r, errNoStaff)
			return
		}
		s, err := g.opt.Staff.ResolveStaff(r.Context(), c.Value, r.Header.Get(apikey.CSRFHeader))
		switch {
		case errors.Is(err, keys.ErrNoSession):
			g.fail(w, r, errNoStaff)
			return
		case errors.Is(err, keys.ErrCSRF):
			g.fail(w, r, errCSRF)
			return
		case err != nil:
			g.fail(w, r, apperr.Unavailable("Authentication", err))
			return
		}
		if _, ok := g.limitBody(w, r, rt); !ok {
			return
		}
		p := principal.Principal{Kind: principal.KindStaff, StaffID: s.ID, StaffName: s.Name, Role: s.Role, ClientIP: g.clientIP(r)}
		g.forward(w, r, rt, &state{p: p})
	})
}
