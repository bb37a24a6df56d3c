package kitserver

import (
	"crypto/subtle"
	"log/slog"
	"net/http"
	"strings"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/envelope"
)

// RequireAdmin serves next only to callers presenting the operators'
// token (Authorization: Bearer <token>, compared in constant time): the
// admin APIs kycctl drives, reached on a service's own address, never
// through the gateway.
func RequireAdmin(token string, log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || token == "" || subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
			envelope.Fail(r.Context(), w, log, apperr.New(apperr.KindUnauthorized, apperr.CodeUnauthorized, "Missing or invalid admin token"))
			return
		}
		next.ServeHTTP(w, r)
	})
}
