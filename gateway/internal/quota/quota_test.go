package quota

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel/metric/noop"

	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/pkg/redistest"
)

func TestTakeIsExactUnderConcurrency(t *testing.T) {
	rdb, prefix := redistest.New(t)
	l := New(rdb, prefix, logging.Discard(), noop.NewMeterProvider().Meter(""))
	var wg sync.WaitGroup
	var mu sync.Mutex
	allowed := 0
	for range 300 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if d := l.Take(context.Background(), "org_1", 100); d.Allowed {
				mu.Lock()
				allowed++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if allowed != 100 {
		t.Fatalf("allowed %d of 300 with a limit of 100", allowed)
	}
	n, _ := l.Count(context.Background(), "org_1", time.Now())
	if n != 100 {
		t.Fatalf("stored count %d", n)
	}
	ttl := rdb.TTL(context.Background(), l.Key("org_1", time.Now())).Val()
	if ttl <= 24*time.Hour || ttl > 48*time.Hour {
		t.Fatalf("counter ttl %s", ttl)
	}
	d := l.Take(context.Background(), "org_2", 0)
	if !d.Allowed || d.Count != 1 || d.Remaining != 0 {
		t.Fatalf("uncapped: %+v", d)
	}
	if d.Reset <= 0 || d.Reset > 24*time.Hour {
		t.Fatalf("reset %s", d.Reset)
	}
}

func TestFallsBackWhenRedisIsDown(t *testing.T) {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialTimeout: 100 * time.Millisecond})
	defer rdb.Close()
	l := New(rdb, "x:", logging.Discard(), noop.NewMeterProvider().Meter(""))
	for i := range 3 {
		d := l.Take(context.Background(), "org", 2)
		if !d.Degraded || d.Allowed != (i < 2) {
			t.Fatalf("request %d: %+v", i, d)
		}
	}
}

// A Redis that restarted (or had SCRIPT FLUSH) no longer knows the script:
// the pipeline must load it again rather than fall back to local counting.
func TestReloadsTheScriptAfterRedisForgotIt(t *testing.T) {
	rdb, prefix := redistest.New(t)
	l := New(rdb, prefix, logging.Discard(), noop.NewMeterProvider().Meter(""))
	ctx := context.Background()
	if d := l.Take(ctx, "org_1", 10); !d.Allowed || d.Degraded || d.Count != 1 {
		t.Fatalf("first take: %+v", d)
	}
	if err := rdb.ScriptFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if d := l.Take(ctx, "org_1", 10); !d.Allowed || d.Degraded || d.Count != 2 {
		t.Fatalf("take after SCRIPT FLUSH: %+v", d)
	}
}

// An uncapped plan's requests are counted without waiting, each by the
// same script, so the stored count is exact once they have drained, and
// every caller hears a distinct count.
func TestCountUncappedIsExactWithoutWaiting(t *testing.T) {
	rdb, prefix := redistest.New(t)
	l := New(rdb, prefix, logging.Discard(), noop.NewMeterProvider().Meter(""))
	var mu sync.Mutex
	seen := map[int64]bool{}
	var wg sync.WaitGroup
	for range 500 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.CountUncapped("org_u", func(n int64) {
				mu.Lock()
				seen[n] = true
				mu.Unlock()
			})
		}()
	}
	wg.Wait()
	l.Drain(5 * time.Second)
	n, _ := l.Count(context.Background(), "org_u", time.Now())
	mu.Lock()
	defer mu.Unlock()
	if n != 500 || len(seen) != 500 {
		t.Fatalf("stored count %d, %d distinct counts heard; want 500 and 500", n, len(seen))
	}
}

func TestCountUncappedFallsBackWhenRedisIsDown(t *testing.T) {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialTimeout: 100 * time.Millisecond})
	defer rdb.Close()
	l := New(rdb, "x:", logging.Discard(), noop.NewMeterProvider().Meter(""))
	got := make(chan int64, 3)
	for range 3 {
		l.CountUncapped("org", func(n int64) { got <- n })
	}
	l.Drain(5 * time.Second)
	if len(got) != 3 {
		t.Fatalf("%d of 3 counts heard", len(got))
	}
}
