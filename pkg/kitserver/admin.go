package kitserver

import (
	"crypto/subtle"
	"log/slog"
	"net"
	"net/http"
	"strings"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/envelope"
	"github.com/kycfield/kyc/pkg/principal"
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
		// The operators' token acts as a principal of its own, so that what
		// it changes is audited as done with that token.
		p := principal.Principal{Kind: principal.KindAdminToken, ClientIP: peerIP(r)}
		next.ServeHTTP(w, r.WithContext(principal.With(r.Context(), p)))
	})
}

// peerIP is the caller's address as the service sees it: the admin API
// is reached directly, never through the gateway, so there is no
// forwarded header to trust.
func peerIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
