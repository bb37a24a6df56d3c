package edge

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sync"
	"testing"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"

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
)

// memberSessions knows one session per role, "<role>-token", CSRF "csrf";
// "old-token" is a session from an auth-billing that sends no role.
type memberSessions struct{ org keys.OrgState }

func (m memberSessions) ResolveSession(_ context.Context, token, csrf string) (apikey.SessionState, keys.OrgState, error) {
	roles := map[string]principal.MemberRole{"owner-token": principal.MemberOwner, "admin-token": principal.MemberAdmin,
		"developer-token": principal.MemberDeveloper, "viewer-token": principal.MemberViewer, "old-token": ""}
	role, ok := roles[token]
	switch {
	case !ok:
		return apikey.SessionState{}, keys.OrgState{}, keys.ErrNoSession
	case csrf != "csrf":
		return apikey.SessionState{}, keys.OrgState{}, keys.ErrCSRF
	}
	return apikey.SessionState{UserID: "usr_" + token, OrgID: m.org.ID, Role: role, ExpiresAt: time.Now().Add(time.Hour)}, m.org, nil
}

type refusals struct {
	mu  sync.Mutex
	got []string
}

func (r *refusals) Refused(_ context.Context, p principal.Principal, action, method, path string) {
	r.mu.Lock()
	r.got = append(r.got, string(p.MemberRole)+" "+p.UserID+" "+action+" "+method+" "+path+" "+p.ClientIP)
	r.mu.Unlock()
}

// A member's role decides their scopes on the public API: a viewer reads
// and is refused every write (ROLE_REQUIRED, recorded for the audit log
// before the answer); developers and up write. Keys are unchanged.
func TestMemberSessionsGetScopesByRole(t *testing.T) {
	rdb, prefix := redistest.New(t)
	g := newTestGateway(t, rdb, prefix, keys.Plan{ID: "growth", DailyRequests: 10000, LiveAccess: true})
	signer, _ := principal.NewSigner([]string{"edge-test-principal-secret"}, time.Minute)
	var mu sync.Mutex
	var got *principal.Principal
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := signer.Verify(r.Header.Get(principal.Header), r.Method, r.URL.EscapedPath())
		if err != nil {
			t.Errorf("principal: %v", err)
		}
		mu.Lock()
		got = &p
		mu.Unlock()
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
	rec := &refusals{}
	h := New(Options{Upstreams: upstreams, MaxJSON: 1 << 20, MaxUpload: 1 << 20, Timeout: 10 * time.Second,
		Sessions: memberSessions{org: g.src.org}, Refusals: rec},
		log, signer, resolver, quota.New(rdb, prefix, log, meter), idempotency.New(rdb, prefix, time.Hour, time.Minute), usage.New(nil, "", time.Hour, log)).Handler(nil)
	readKey := g.newKey(principal.EnvTest)
	g.src.mu.Lock()
	for hash, k := range g.src.keys {
		k.Scopes = []string{principal.ScopeRead}
		g.src.keys[hash] = k
	}
	g.src.mu.Unlock()

	for _, tc := range []struct {
		name, token, key, method, path string
		status                         int
		code                           string
		role                           principal.MemberRole
		scopes                         []string
	}{
		{"a viewer reads", "viewer-token", "", "GET", "/api/v1/customers", http.StatusOK, "", principal.MemberViewer, []string{principal.ScopeRead}},
		{"a viewer creates a webhook", "viewer-token", "", "POST", "/api/v1/webhooks", http.StatusForbidden, principal.CodeRoleRequired, "", nil},
		{"a viewer reads a webhook secret", "viewer-token", "", "GET", "/api/v1/webhooks/whk_1/secret", http.StatusForbidden, principal.CodeRoleRequired, "", nil},
		{"a developer creates a webhook", "developer-token", "", "POST", "/api/v1/webhooks", http.StatusOK, "", principal.MemberDeveloper,
			[]string{principal.ScopeRead, principal.ScopeWrite}},
		{"an owner writes", "owner-token", "", "DELETE", "/api/v1/customers/cus_1", http.StatusOK, "", principal.MemberOwner,
			[]string{principal.ScopeRead, principal.ScopeWrite}},
		{"a session without a role only reads", "old-token", "", "POST", "/api/v1/webhooks", http.StatusForbidden, principal.CodeRoleRequired, "", nil},
		{"a read-only key writes: as before", "", readKey, "POST", "/api/v1/webhooks", http.StatusForbidden, "INSUFFICIENT_SCOPE", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mu.Lock()
			got = nil
			mu.Unlock()
			r := httptest.NewRequest(tc.method, tc.path, nil)
			r.RemoteAddr = "198.51.100.9:4000"
			r.Header.Set(apikey.EnvironmentHeader, "test")
			if tc.key != "" {
				r.Header.Set("Authorization", "Bearer "+tc.key)
			} else {
				r.AddCookie(&http.Cookie{Name: apikey.SessionCookie, Value: tc.token})
				r.Header.Set(apikey.CSRFHeader, "csrf")
			}
			if tc.method == "POST" {
				r.Header.Set("Content-Type", "application/json")
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tc.status {
				t.Fatalf("%d %s", w.Code, w.Body)
			}
			mu.Lock()
			defer mu.Unlock()
			if tc.status != http.StatusOK {
				var env envelope.Response
				if err := json.Unmarshal(w.Body.Bytes(), &env); err != nil || env.Error == nil || env.Error.Code != tc.code {
					t.Fatalf("want %s: %s", tc.code, w.Body)
				}
				if got != nil {
					t.Fatalf("a refused request reached the service as %+v", got)
				}
				return
			}
			if got == nil || got.MemberRole != tc.role || !slices.Equal(got.Scopes, tc.scopes) || got.UserID != "usr_"+tc.token {
				t.Fatalf("service saw %+v", got)
			}
		})
	}
	want := []string{
		"viewer usr_viewer-token endpoint.create POST /api/v1/webhooks 198.51.100.9",
		"viewer usr_viewer-token endpoint.secret_read GET /api/v1/webhooks/whk_1/secret 198.51.100.9",
		" usr_old-token endpoint.create POST /api/v1/webhooks 198.51.100.9",
	}
	if !slices.Equal(rec.got, want) {
		t.Fatalf("refusals recorded:\n%q\nwant\n%q", rec.got, want)
	}
}
