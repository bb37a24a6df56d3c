package edge

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/kycfield/kyc/gateway/internal/keys"
	"github.com/kycfield/kyc/pkg/apikey"
	"github.com/kycfield/kyc/pkg/envelope"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/pkg/redistest"
)

// The Authorization scheme is case-insensitive and may be followed by
// several spaces (RFC 7235 section 2.1); anything else that is not a
// Bearer token is a missing key, and an unknown token an invalid one.
func TestBearerScheme(t *testing.T) {
	rdb, prefix := redistest.New(t)
	g := newTestGateway(t, rdb, prefix, keys.Plan{ID: "growth", DailyRequests: 10000, LiveAccess: true})
	key := g.newKey(principal.EnvTest)
	const missing, invalid = `Bearer realm="kyc"`, `Bearer realm="kyc", error="invalid_token"`
	for _, tc := range []struct {
		name, header string
		status       int
		challenge    string
	}{
		{"Bearer", "Bearer " + key, http.StatusOK, ""},
		{"lower case", "bearer " + key, http.StatusOK, ""},
		{"upper case", "BEARER " + key, http.StatusOK, ""},
		{"mixed case", "bEaReR " + key, http.StatusOK, ""},
		{"several spaces", "Bearer   " + key, http.StatusOK, ""},
		{"surrounding spaces", "  Bearer " + key + "  ", http.StatusOK, ""},
		{"no header", "", http.StatusUnauthorized, missing},
		{"scheme only", "Bearer", http.StatusUnauthorized, missing},
		{"scheme and spaces only", "Bearer   ", http.StatusUnauthorized, missing},
		{"no space after the scheme", "Bearer" + key, http.StatusUnauthorized, missing},
		{"wrong scheme", "Basic " + key, http.StatusUnauthorized, missing},
		{"scheme as prefix of another", "Bearerx " + key, http.StatusUnauthorized, missing},
		{"key without scheme", key, http.StatusUnauthorized, missing},
		{"unknown key", "bearer mk_test_00000000000000000000000000000000", http.StatusUnauthorized, invalid},
		{"not a key", "Bearer abc", http.StatusUnauthorized, invalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := g.do(http.MethodGet, "/api/v1/customers", tc.header, "")
			if w.Code != tc.status {
				t.Fatalf("%q: %d %s", tc.header, w.Code, w.Body)
			}
			if tc.status == http.StatusOK {
				return
			}
			if got := w.Header().Get("WWW-Authenticate"); got != tc.challenge {
				t.Errorf("%q: WWW-Authenticate %q, want %q", tc.header, got, tc.challenge)
			}
			var env envelope.Response
			if err := json.Unmarshal(w.Body.Bytes(), &env); err != nil || env.Error == nil || env.Error.Code != "UNAUTHORIZED" {
				t.Errorf("%q: body %s", tc.header, w.Body)
			}
		})
	}
}

// A live key of an organization whose plan has no live access is refused
// with the code auth-billing uses for the same rule; its sandbox keys work.
func TestLiveKeyNeedsLiveAccess(t *testing.T) {
	rdb, prefix := redistest.New(t)
	g := newTestGateway(t, rdb, prefix, keys.Plan{ID: "developer", DailyRequests: 100, TestRecordLimit: 50})
	w := g.do(http.MethodGet, "/api/v1/customers", "Bearer "+g.newKey(principal.EnvLive), "")
	var env envelope.Response
	if err := json.Unmarshal(w.Body.Bytes(), &env); err != nil || w.Code != http.StatusForbidden || env.Error == nil || env.Error.Code != apikey.CodePlanUpgradeRequired {
		t.Fatalf("live key on developer: %d %s", w.Code, w.Body)
	}
	if w := g.do(http.MethodGet, "/api/v1/customers", "Bearer "+g.newKey(principal.EnvTest), ""); w.Code != http.StatusOK {
		t.Fatalf("sandbox key on developer: %d %s", w.Code, w.Body)
	}
}
