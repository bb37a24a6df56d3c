package edge

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/kycfield/kyc/gateway/internal/keys"
	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/envelope"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/pkg/redistest"
)

// Invalid UTF-8 or NUL anywhere a client writes text is a 400
// VALIDATION_ERROR from the gateway itself, with or without a key, on
// every kind of route, and never reaches a service.
func TestBadTextIsRefusedAtTheEdge(t *testing.T) {
	rdb, prefix := redistest.New(t)
	g := newTestGateway(t, rdb, prefix, keys.Plan{ID: "growth", DailyRequests: 10000, LiveAccess: true})
	var reached atomic.Int32
	serve := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		reached.Add(1)
		w.WriteHeader(http.StatusOK)
	})
	g.serve.Store(&serve)
	key := "Bearer " + g.newKey(principal.EnvTest)
	cases := []struct {
		name, method, target string
		auth                 string
		header               [2]string
		field                string
	}{
		{"NUL in search", "GET", "/api/v1/customers?search=%00", key, [2]string{}, "search"},
		{"invalid UTF-8 in search", "GET", "/api/v1/customers?search=%C3%28", key, [2]string{}, "search"},
		{"NUL in a path segment", "GET", "/api/v1/customers/cus_%00", key, [2]string{}, "path"},
		{"invalid UTF-8 in a path segment", "DELETE", "/api/v1/customers/%FF", key, [2]string{}, "path"},
		{"invalid UTF-8 in a header", "GET", "/api/v1/customers", key, [2]string{"X-Client-Note", "caf\xe9"}, "header X-Client-Note"},
		{"invalid UTF-8 in the key itself", "GET", "/api/v1/customers", "Bearer mk_test_\xff", [2]string{}, "header Authorization"},
		{"no key", "GET", "/api/v1/customers?search=%00", "", [2]string{}, "search"},
		{"an open route", "GET", "/api/v1/reports/verify/%00", "", [2]string{}, "path"},
		{"an agent route", "GET", "/agent/v1/tasks?x=%FE", "", [2]string{}, "x"},
		{"no such route", "GET", "/nowhere/%00", "", [2]string{}, "path"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest(c.method, c.target, nil)
			if c.auth != "" {
				r.Header.Set("Authorization", c.auth)
			}
			if c.header[0] != "" {
				r.Header[c.header[0]] = []string{c.header[1]}
			}
			w := httptest.NewRecorder()
			g.handler.ServeHTTP(w, r)
			var resp envelope.Response
			if err := json.Unmarshal(w.Body.Bytes(), &resp); err != nil || resp.Error == nil {
				t.Fatalf("%d %q", w.Code, w.Body)
			}
			if w.Code != http.StatusBadRequest || resp.Error.Code != apperr.CodeValidation ||
				len(resp.Error.Details) != 1 || resp.Error.Details[0].Field != c.field || resp.Meta.RequestID == "" {
				t.Fatalf("got %d %+v, want 400 VALIDATION_ERROR on %s", w.Code, resp, c.field)
			}
		})
	}
	if n := reached.Load(); n != 0 {
		t.Fatalf("%d refused requests reached a service", n)
	}
	// The same request with clean text goes through: the barrier that
	// shows the stub would have counted a request that got by.
	if w := g.do("GET", "/api/v1/customers?search=Ad%C3%A9b%C3%ADs%C3%AD", key, ""); w.Code != http.StatusOK || reached.Load() != 1 {
		t.Fatalf("clean request: %d, reached %d", w.Code, reached.Load())
	}
}
