package edge

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/metric/noop"

	"github.com/kycfield/kyc/gateway/internal/admit"
	"github.com/kycfield/kyc/gateway/internal/keys"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/pkg/redistest"
)

// TestAdmissionShedsOnlyTheLenderAPI: with the API's one slot held by a
// request the service has not answered, another API request (a read, and
// a create under an Idempotency-Key) is answered at once with 503
// SERVICE_OVERLOADED, Retry-After and the standard envelope, without
// reaching the service or counting against the quota; the agent app's,
// the dashboard's and the public verify routes still pass. Once the slot
// is free, the create's retry under the same key reaches the service
// exactly once.
func TestAdmissionShedsOnlyTheLenderAPI(t *testing.T) {
	rdb, prefix := redistest.New(t)
	g := newTestGateway(t, rdb, prefix, keys.Plan{ID: "growth", DailyRequests: 10000, LiveAccess: true}, func(o *Options) {
		o.Admit = admit.New(admit.Config{Limit: 1, RetryAfter: time.Second}, noop.NewMeterProvider().Meter(""))
	})
	secret := g.newKey(principal.EnvTest)

	var mu sync.Mutex
	reached := map[string]int{} // method path [idempotency key] -> requests the service saw
	entered, release := make(chan struct{}), make(chan struct{})
	serve := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		mu.Lock()
		reached[strings.TrimSpace(r.Method+" "+r.URL.Path+" "+r.Header.Get("Idempotency-Key"))]++
		mu.Unlock()
		if r.URL.Path == "/api/v1/customers/cus_slow" {
			close(entered)
			<-release
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_, _ = io.WriteString(w, `{"status":true,"message":"ok","data":{"id":"cus_1"}}`)
	})
	g.serve.Store(&serve)

	// The slow request holds the only slot until release.
	slow := make(chan int)
	go func() { slow <- g.do(http.MethodGet, "/api/v1/customers/cus_slow", "Bearer "+secret, "").Code }()
	<-entered
	countBefore, err := g.limiter.Count(context.Background(), "org_edge", time.Now().UTC())
	if err != nil {
		t.Fatal(err)
	}

	create := func() *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodPost, "/api/v1/customers", strings.NewReader(`{"firstName":"Ada"}`))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Authorization", "Bearer "+secret)
		r.Header.Set("Idempotency-Key", "create-1")
		w := httptest.NewRecorder()
		g.handler.ServeHTTP(w, r)
		return w
	}
	for _, c := range []struct {
		name string
		do   func() *httptest.ResponseRecorder
	}{
		{"a read", func() *httptest.ResponseRecorder {
			return g.do(http.MethodGet, "/api/v1/customers", "Bearer "+secret, "")
		}},
		{"a create with an Idempotency-Key", create},
	} {
		w := c.do()
		var env struct {
			Status bool
			Error  struct{ Code, Message string }
			Meta   struct{ RequestID, Timestamp string }
		}
		_ = json.Unmarshal(w.Body.Bytes(), &env)
		if w.Code != http.StatusServiceUnavailable || env.Status || env.Error.Code != admit.CodeOverloaded || env.Error.Message == "" ||
			env.Meta.RequestID == "" || env.Meta.Timestamp == "" {
			t.Fatalf("%s while the API is full: %d %s", c.name, w.Code, w.Body)
		}
		// Whole seconds, 1 to 30: how many grows with the overload
		// (admit's TestRetryAfterGrowsWithTheOverload).
		if secs, err := strconv.Atoi(w.Header().Get("Retry-After")); err != nil || secs < 1 || secs > 30 {
			t.Errorf("%s: Retry-After %q, want whole seconds from 1 to 30", c.name, w.Header().Get("Retry-After"))
		}
	}
	if n, _ := g.limiter.Count(context.Background(), "org_edge", time.Now().UTC()); n != countBefore {
		t.Errorf("quota count %d after two shed requests, want %d (shed requests are not counted)", n, countBefore)
	}

	// Routes outside the lender API are never shed.
	for _, path := range []string{"/agent/v1/tasks", "/dashboard/v1/me", "/ops/v1/session", "/api/v1/reports/verify/ABCD-EFGH"} {
		if code := g.do(http.MethodGet, path, "", "").Code; code == http.StatusServiceUnavailable {
			t.Errorf("GET %s while the API is full: 503", path)
		}
	}

	close(release)
	if code := <-slow; code != http.StatusCreated {
		t.Fatalf("the slow request: %d", code)
	}
	for i := range 2 { // the retry runs; a second retry is replayed
		if w := create(); w.Code != http.StatusCreated {
			t.Fatalf("retry %d after the slot was freed: %d %s", i+1, w.Code, w.Body)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if n := reached["POST /api/v1/customers create-1"]; n != 1 {
		t.Errorf("the create reached the service %d times, want 1 (shed, then run, then replayed)", n)
	}
	if n := reached["GET /api/v1/customers"]; n != 0 {
		t.Errorf("the shed read reached the service %d times", n)
	}
}
