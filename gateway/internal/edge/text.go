package edge

import (
	"net/http"

	"github.com/kycfield/kyc/pkg/wiretext"
)

// refuseBadText answers 400 VALIDATION_ERROR to a request whose path,
// query or header values hold invalid UTF-8 or NUL, before routing,
// authentication or quota: no service can store such text (Postgres
// refuses it, which used to surface as a 500), and checking it once here
// covers every route. Go's HTTP server already refuses control
// characters in raw header values with a plain 400 before any handler
// runs; what reaches this point is percent-encoded text and obs-text
// header bytes.
func (g *Gateway) refuseBadText(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := wiretext.Request(r); err != nil {
			g.fail(w, r, err)
			return
		}
		next.ServeHTTP(w, r)
	})
}
