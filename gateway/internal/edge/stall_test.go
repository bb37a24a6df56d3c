package edge

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel/metric/noop"

	"github.com/kycfield/kyc/gateway/internal/keys"
	"github.com/kycfield/kyc/gateway/internal/redisguard"
	"github.com/kycfield/kyc/pkg/faultproxy"
	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/pkg/redistest"
)

// redisTimeout is the gateway's per-call Redis budget.
const redisTimeout = redisguard.DefaultTimeout

// newRedis is the client app.Run builds, for addr.
func newRedis(addr string) *redis.Client {
	return redisguard.NewClient(&redis.Options{Addr: addr, MaxRetries: 1}, redisguard.Options{}, logging.Discard(), noop.NewMeterProvider().Meter(""))
}

// A Redis that stops answering for a few seconds costs a request at most
// one Redis timeout, however many Redis calls the request would make (key
// cache read, cache fill, quota), and the requests that follow during the
// stall do not wait at all; the quota falls back to local counting (with
// its metric), nothing answers 500, and Redis counts again once it is back.
func TestRedisStallCostsARequestAtMostOneTimeout(t *testing.T) {
	direct, prefix := redistest.New(t)
	proxy := faultproxy.Start(t, direct.Options().Addr)
	rdb := newRedis(proxy.Addr())
	t.Cleanup(func() { rdb.Close() })
	g := newTestGateway(t, rdb, prefix, keys.Plan{ID: "growth", DailyRequests: 10000, LiveAccess: true})
	list := func(secret string) (int, time.Duration) {
		start := time.Now()
		w := g.do(http.MethodGet, "/api/v1/customers", "Bearer "+secret, "")
		return w.Code, time.Since(start)
	}
	cached := g.newKey(principal.EnvTest)
	if code, _ := list(cached); code != http.StatusOK {
		t.Fatalf("before the stall: %d", code)
	}

	proxy.Pause()
	// A key this instance has never seen needs every Redis call there is.
	code, first := list(g.newKey(principal.EnvTest))
	t.Logf("first request during the stall: %d in %s", code, first)
	if code != http.StatusOK {
		t.Fatalf("first request during the stall: %d", code)
	}
	if first > 1800*time.Millisecond {
		t.Fatalf("first request during the stall took %s; one Redis timeout is %s", first, redisTimeout)
	}
	// The requests that follow, new keys and cached ones, concurrently.
	var wg sync.WaitGroup
	var mu sync.Mutex
	var slowest time.Duration
	statuses := map[int]int{}
	for i := range 20 {
		secret := cached
		if i%2 == 0 {
			secret = g.newKey(principal.EnvTest)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, took := list(secret)
			mu.Lock()
			defer mu.Unlock()
			statuses[code]++
			slowest = max(slowest, took)
		}()
	}
	wg.Wait()
	t.Logf("20 more requests during the stall: %v, slowest %s", statuses, slowest)
	if statuses[http.StatusOK] != 20 {
		t.Fatalf("during the stall: %v", statuses)
	}
	if slowest > redisTimeout {
		t.Fatalf("a request after the first waited %s for Redis again", slowest)
	}
	if n := g.counter(t, "kyc_gateway_quota_fallback_total"); n < 21 {
		t.Fatalf("kyc_gateway_quota_fallback_total = %d, want every request of the stall", n)
	}

	proxy.Resume()
	// Once Redis answers again, requests are counted there, not locally.
	deadline := time.Now().Add(5 * time.Second)
	for {
		fallbacks := g.counter(t, "kyc_gateway_quota_fallback_total")
		if code, _ := list(cached); code != http.StatusOK {
			t.Fatalf("after the stall: %d", code)
		}
		if g.counter(t, "kyc_gateway_quota_fallback_total") == fallbacks {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("still counting locally 5 s after the stall ended")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
