package edge

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/kycfield/kyc/gateway/internal/idempotency"
	"github.com/kycfield/kyc/gateway/internal/keys"
	"github.com/kycfield/kyc/gateway/internal/quota"
	"github.com/kycfield/kyc/gateway/internal/routes"
	"github.com/kycfield/kyc/gateway/internal/usage"
	"github.com/kycfield/kyc/pkg/apikey"
	"github.com/kycfield/kyc/pkg/envelope"
	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/pkg/redistest"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
)

// staffSessions knows one staff session, "ops-token" with CSRF "ops-csrf".
type staffSessions struct{}

func (staffSessions) ResolveStaff(_ context.Context, token, csrf string) (principal.StaffState, error) {
	switch {
	case token != "ops-token":
		return principal.StaffState{}, keys.ErrNoSession
	case csrf != "ops-csrf":
		return principal.StaffState{}, keys.ErrCSRF
	}
	return principal.StaffState{ID: "stf_1", Name: "Ada Obi", Email: "ada@ops.example", Role: principal.RoleReviewer}, nil
}

// Only a staff session reaches a console route, and it arrives as a staff
// principal: an API key, a lender's dashboard session, a session without
// its CSRF token or an unknown one never do.
func TestStaffRoutesTakeOnlyStaffSessions(t *testing.T) {
	rdb, prefix := redistest.New(t)
	g := newTestGateway(t, rdb, prefix, keys.Plan{ID: "growth", DailyRequests: 10000, LiveAccess: true})
	signer, _ := principal.NewSigner([]string{"edge-test-principal-secret"}, time.Minute)
	var got principal.Principal
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, _ = signer.Verify(r.Header.Get(principal.Header), r.Method, r.URL.EscapedPath())
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"status":true,"data":{}}`))
	}))
	t.Cleanup(up.Close)
	u, _ := url.Parse(up.URL)
	upstreams := map[string]*url.URL{}
	for _, rt := range routes.Table {
		upstreams[rt.Service] = u
	}
	log := logging.Discard()
	meter := sdkmetric.NewMeterProvider().Meter("gateway")
	resolver := keys.NewResolver(rdb, prefix, g.src, keys.Options{LocalTTL: time.Minute, SharedTTL: time.Hour, NegativeTTL: time.Minute}, log, meter)
	h := New(Options{Upstreams: upstreams, MaxJSON: 1 << 20, MaxUpload: 1 << 20, Timeout: 10 * time.Second, Staff: staffSessions{}},
		log, signer, resolver, quota.New(rdb, prefix, log, meter), idempotency.New(rdb, prefix, time.Hour, time.Minute), usage.New(nil, "", time.Hour, log)).Handler(nil)
	key := g.newKey(principal.EnvLive)

	for _, tc := range []struct {
		name          string
		authorization string
		cookies       []*http.Cookie
		csrf          string
		status        int
		code          string
	}{
		{"staff session", "", []*http.Cookie{{Name: principal.StaffCookie, Value: "ops-token"}}, "ops-csrf", http.StatusOK, ""},
		{"staff session and an API key", "Bearer " + key, []*http.Cookie{{Name: principal.StaffCookie, Value: "ops-token"}}, "ops-csrf", http.StatusOK, ""},
		{"API key", "Bearer " + key, nil, "", http.StatusUnauthorized, CodeStaffSessionRequired},
		{"lender's dashboard session", "", []*http.Cookie{{Name: apikey.SessionCookie, Value: "ops-token"}}, "ops-csrf", http.StatusUnauthorized, CodeStaffSessionRequired},
		{"unknown staff session", "", []*http.Cookie{{Name: principal.StaffCookie, Value: "forged"}}, "ops-csrf", http.StatusUnauthorized, CodeStaffSessionRequired},
		{"no CSRF token", "", []*http.Cookie{{Name: principal.StaffCookie, Value: "ops-token"}}, "", http.StatusForbidden, apikey.CodeCSRF},
		{"nothing", "", nil, "", http.StatusUnauthorized, CodeStaffSessionRequired},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got = principal.Principal{}
			r := httptest.NewRequest(http.MethodGet, "/ops/v1/me", nil)
			if tc.authorization != "" {
				r.Header.Set("Authorization", tc.authorization)
			}
			for _, c := range tc.cookies {
				r.AddCookie(c)
			}
			if tc.csrf != "" {
				r.Header.Set(apikey.CSRFHeader, tc.csrf)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tc.status {
				t.Fatalf("%d %s", w.Code, w.Body)
			}
			if tc.status != http.StatusOK {
				var env envelope.Response
				if err := json.Unmarshal(w.Body.Bytes(), &env); err != nil || env.Error == nil || env.Error.Code != tc.code {
					t.Fatalf("want %s: %s", tc.code, w.Body)
				}
				if got.Kind != "" {
					t.Fatalf("a refused request reached the service as %+v", got)
				}
				return
			}
			if got.Kind != principal.KindStaff || got.StaffID != "stf_1" || got.Role != principal.RoleReviewer || got.OrgID != "" || got.KeyID != "" {
				t.Fatalf("service saw %+v", got)
			}
		})
	}
}
