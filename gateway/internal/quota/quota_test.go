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

// Uncapped counts of several organizations, and capped takes, sharing
// pipelines: every organization's stored count is exact, every uncapped
// caller hears a count of its own, and the cap still holds.
func TestUncappedCountsOfSeveralOrganizationsStayExact(t *testing.T) {
	rdb, prefix := redistest.New(t)
	l := New(rdb, prefix, logging.Discard(), noop.NewMeterProvider().Meter(""))
	orgs := []string{"org_a", "org_b", "org_c"}
	var mu sync.Mutex
	heard := map[string]map[int64]bool{}
	for _, o := range orgs {
		heard[o] = map[int64]bool{}
	}
	allowed := 0
	var wg sync.WaitGroup
	for i := range 600 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			o := orgs[i%len(orgs)]
			l.CountUncapped(o, func(n int64) {
				mu.Lock()
				heard[o][n] = true
				mu.Unlock()
			})
		}()
		go func() {
			defer wg.Done()
			if d := l.Take(context.Background(), "org_capped", 250); d.Allowed {
				mu.Lock()
				allowed++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	l.Drain(5 * time.Second)
	mu.Lock()
	defer mu.Unlock()
	for _, o := range orgs {
		n, _ := l.Count(context.Background(), o, time.Now())
		if n != 200 || len(heard[o]) != 200 {
			t.Errorf("%s: stored count %d, %d distinct counts heard; want 200 and 200", o, n, len(heard[o]))
		}
		if ttl := rdb.TTL(context.Background(), l.Key(o, time.Now())).Val(); ttl <= 24*time.Hour || ttl > 48*time.Hour {
			t.Errorf("%s: counter ttl %s", o, ttl)
		}
	}
	if n, _ := l.Count(context.Background(), "org_capped", time.Now()); allowed != 250 || n != 250 {
		t.Errorf("capped: allowed %d, stored %d; want 250 and 250", allowed, n)
	}
}

// The uncapped count's script is reloaded as well after Redis forgot it.
func TestReloadsTheCountScriptAfterRedisForgotIt(t *testing.T) {
	rdb, prefix := redistest.New(t)
	l := New(rdb, prefix, logging.Discard(), noop.NewMeterProvider().Meter(""))
	ctx := context.Background()
	for round := 1; round <= 2; round++ {
		if err := rdb.ScriptFlush(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		got := make(chan int64, 1)
		l.CountUncapped("org_1", func(n int64) { got <- n })
		l.Drain(5 * time.Second)
		if n, _ := l.Count(ctx, "org_1", time.Now()); n != int64(round) || <-got != int64(round) {
			t.Fatalf("round %d: stored count %d", round, n)
		}
	}
}

// Uncapped counts linger to share a round trip, but a capped request of
// the same organization (its plan just gained a cap) sends them first
// and counts after them: it never decides on a count that misses them.
func TestCappedTakeCountsTheUncappedQueuedBeforeIt(t *testing.T) {
	rdb, prefix := redistest.New(t)
	l := New(rdb, prefix, logging.Discard(), noop.NewMeterProvider().Meter(""))
	ctx := context.Background()
	for range 10 {
		l.CountUncapped("org_1", nil)
	}
	for i, want := range []Decision{{Allowed: true, Count: 11}, {Allowed: false, Count: 11}} {
		if d := l.Take(ctx, "org_1", 11); d.Allowed != want.Allowed || d.Count != want.Count || d.Degraded {
			t.Fatalf("take %d after 10 uncapped counts, limit 11: %+v, want allowed %v at %d", i+1, d, want.Allowed, want.Count)
		}
	}
	l.Drain(5 * time.Second)
	if n, _ := l.Count(ctx, "org_1", time.Now()); n != 11 {
		t.Fatalf("stored count %d, want 11", n)
	}
}

// When Redis knows one script and not the other (another instance loaded
// it), only what was refused is sent again: the takes that ran are not
// counted twice.
func TestResendsOnlyWhatRedisRefused(t *testing.T) {
	rdb, prefix := redistest.New(t)
	l := New(rdb, prefix, logging.Discard(), noop.NewMeterProvider().Meter(""))
	ctx := context.Background()
	if err := rdb.ScriptFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if err := take.Load(ctx, rdb).Err(); err != nil {
		t.Fatal(err)
	}
	for range 5 {
		l.CountUncapped("org_u", nil)
	}
	if d := l.Take(ctx, "org_c", 10); !d.Allowed || d.Degraded || d.Count != 1 {
		t.Fatalf("take: %+v", d)
	}
	l.Drain(5 * time.Second)
	for org, want := range map[string]int64{"org_u": 5, "org_c": 1} {
		if n, _ := l.Count(ctx, org, time.Now()); n != want {
			t.Errorf("%s: stored count %d, want %d", org, n, want)
		}
	}
}
