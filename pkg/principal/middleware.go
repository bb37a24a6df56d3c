package principal

import (
	"log/slog"
	"net/http"
	"slices"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/envelope"
)

// ErrUnauthorized is what a service answers to a request without a valid
// principal. It does not say why, so that probing learns nothing.
var ErrUnauthorized = apperr.New(apperr.KindUnauthorized, apperr.CodeUnauthorized, "Missing or invalid credentials")

// Require wraps next so that it only runs for requests carrying a valid
// principal of one of the given kinds; the principal is put in the
// request context.
func Require(s *Signer, log *slog.Logger, kinds ...Kind) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			p, err := s.Verify(r.Header.Get(Header), r.Method, r.URL.EscapedPath())
			if err == nil && !slices.Contains(kinds, p.Kind) {
				err = ErrInvalid
			}
			if err != nil {
				log.WarnContext(r.Context(), "principal rejected", "reason", err.Error(), "path", r.URL.Path)
				envelope.Fail(r.Context(), w, log, ErrUnauthorized)
				return
			}
			next.ServeHTTP(w, r.WithContext(With(r.Context(), p)))
		})
	}
}
