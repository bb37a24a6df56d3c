package httpapi

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// The session cookie must never be readable by scripts or sent on
// cross-site subrequests, and must be Secure wherever we are not on a
// developer's plain-http loopback (KYC_MODE=production sets SecureCookies).
func TestSessionCookieAttributes(t *testing.T) {
	exp := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name   string
		token  string
		secure bool
		want   []string
		absent []string
	}{
		{"production login", "tok", true, []string{"kyc_session=tok", "Path=/;", "HttpOnly", "Secure", "SameSite=Lax", "Expires="}, nil},
		{"local login", "tok", false, []string{"kyc_session=tok", "HttpOnly", "SameSite=Lax"}, []string{"Secure"}},
		{"production logout", "", true, []string{"kyc_session=", "Max-Age=0", "HttpOnly", "Secure", "SameSite=Lax"}, nil},
	} {
		c := sessionCookie(tc.token, exp, DashboardOptions{SecureCookies: tc.secure})
		h := http.Header{}
		h.Add("Set-Cookie", c.String())
		got := h.Get("Set-Cookie")
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", tc.name, got, w)
			}
		}
		for _, a := range tc.absent {
			if strings.Contains(got, a) {
				t.Errorf("%s: %q has %q", tc.name, got, a)
			}
		}
	}
}
