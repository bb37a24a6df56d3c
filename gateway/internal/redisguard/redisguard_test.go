package redisguard

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/kycfield/kyc/gateway/internal/stallproxy"
	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/pkg/redistest"
)

var errTimeout = &net.OpError{Op: "read", Net: "tcp", Err: timeoutErr{}}

type timeoutErr struct{}

func (timeoutErr) Error() string { return "i/o timeout" }
func (timeoutErr) Timeout() bool { return true }

// fake is a Redis behind the hook: it counts calls and answers err.
type fake struct {
	calls atomic.Int32
	mu    sync.Mutex
	err   error
}

func (f *fake) set(err error) { f.mu.Lock(); f.err = err; f.mu.Unlock() }

func (f *fake) process(ctx context.Context, cmd redis.Cmder) error {
	f.calls.Add(1)
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

// testCooldown is long enough for a few calls in a row to fall within it.
const testCooldown = 300 * time.Millisecond

// newGuard returns a guard in front of a fake Redis, a call through it,
// and a function that waits out the cooldown.
func newGuard(t *testing.T) (*Guard, *fake, func(context.Context) error, func()) {
	t.Helper()
	g := New(Options{Timeout: 100 * time.Millisecond, Cooldown: testCooldown}, logging.Discard(), noop.NewMeterProvider().Meter(""))
	f := &fake{}
	hook := g.ProcessHook(f.process)
	call := func(ctx context.Context) error { return hook(ctx, redis.NewStringCmd(ctx, "get", "k")) }
	return g, f, call, func() { time.Sleep(testCooldown + 10*time.Millisecond) }
}

func TestRepliesNeverMarkRedisDown(t *testing.T) {
	g, f, call, _ := newGuard(t)
	ctx := context.Background()
	for _, err := range []error{nil, redis.Nil, errReply("NOSCRIPT No matching script"), errReply("WRONGTYPE Operation against a key")} {
		f.set(err)
		if got := call(ctx); got != err {
			t.Fatalf("error %v became %v", err, got)
		}
		if g.Down() {
			t.Fatalf("marked down after %v", err)
		}
	}
	// A caller that gave up says nothing about Redis.
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	f.set(context.Canceled)
	_ = call(cancelled)
	if g.Down() {
		t.Fatal("marked down after the caller's own cancellation")
	}
}

// errReply is an error reply from Redis (go-redis's proto.RedisError).
type errReply string

func (e errReply) Error() string { return string(e) }
func (errReply) RedisError()     {}

func TestFailureFailsFastUntilAProbeSucceeds(t *testing.T) {
	g, f, call, coolDown := newGuard(t)
	ctx := context.Background()
	f.set(errTimeout)
	if err := call(ctx); !errors.Is(err, errTimeout) {
		t.Fatal(err)
	}
	if !g.Down() {
		t.Fatal("a timeout did not mark Redis down")
	}
	for range 5 {
		if err := call(ctx); !errors.Is(err, ErrDown) {
			t.Fatalf("during the cooldown: %v", err)
		}
	}
	if n := f.calls.Load(); n != 1 {
		t.Fatalf("Redis called %d times during the cooldown", n)
	}
	// Cooldown over, Redis still down: one probe, then a new cooldown.
	coolDown()
	if err := call(ctx); !errors.Is(err, errTimeout) {
		t.Fatalf("probe: %v", err)
	}
	if err := call(ctx); !errors.Is(err, ErrDown) || f.calls.Load() != 2 {
		t.Fatalf("after a failed probe: %v, %d calls", err, f.calls.Load())
	}
	// A probe whose caller gave up proves nothing: still down.
	coolDown()
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	f.set(context.Canceled)
	if err := call(cancelled); !errors.Is(err, context.Canceled) || !g.Down() {
		t.Fatalf("cancelled probe: %v, down=%v", err, g.Down())
	}
	// Redis back: the next probe reopens the way for everyone.
	f.set(nil)
	for range 3 {
		if err := call(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if g.Down() || f.calls.Load() != 6 {
		t.Fatalf("after a good probe: down=%v, %d calls", g.Down(), f.calls.Load())
	}
}

// An outage is counted and logged once, however many probes fail before
// Redis answers again; every refused call is counted.
func TestOutageMetricsAndLogs(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	var logs bytes.Buffer
	g := New(Options{Timeout: 100 * time.Millisecond, Cooldown: testCooldown}, slog.New(slog.NewTextHandler(&logs, nil)),
		sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)).Meter(""))
	f := &fake{}
	hook := g.ProcessHook(f.process)
	ctx := context.Background()
	call := func() error { return hook(ctx, redis.NewStringCmd(ctx, "get", "k")) }
	counters := func() (outages, skipped int64) {
		var rm metricdata.ResourceMetrics
		if err := reader.Collect(ctx, &rm); err != nil {
			t.Fatal(err)
		}
		for _, sm := range rm.ScopeMetrics {
			for _, m := range sm.Metrics {
				for _, p := range m.Data.(metricdata.Sum[int64]).DataPoints {
					switch m.Name {
					case "kyc_gateway_redis_outages_total":
						outages += p.Value
					case "kyc_gateway_redis_skipped_calls_total":
						skipped += p.Value
					}
				}
			}
		}
		return outages, skipped
	}
	f.set(errTimeout)
	_ = call() // an outage begins
	_ = call() // skipped
	time.Sleep(testCooldown + 10*time.Millisecond)
	_ = call() // a failed probe: the same outage
	_ = call() // skipped
	if o, s := counters(); o != 1 || s != 2 {
		t.Fatalf("one outage with a failed probe: outages %d, skipped %d", o, s)
	}
	time.Sleep(testCooldown + 10*time.Millisecond)
	f.set(nil)
	_ = call() // Redis answers again
	f.set(errTimeout)
	_ = call() // a second outage
	if o, s := counters(); o != 2 || s != 2 {
		t.Fatalf("two outages: outages %d, skipped %d", o, s)
	}
	out := logs.String()
	if w, i := strings.Count(out, "level=WARN"), strings.Count(out, "level=INFO"); w != 2 || i != 1 || !strings.Contains(out, "i/o timeout") {
		t.Fatalf("%d warnings, %d infos:\n%s", w, i, out)
	}
}

// While a probe is out, the other calls do not queue behind it.
func TestOneProbeAtATime(t *testing.T) {
	g := New(Options{Timeout: time.Second, Cooldown: time.Millisecond}, logging.Discard(), noop.NewMeterProvider().Meter(""))
	release := make(chan struct{})
	var calls atomic.Int32
	hook := g.ProcessHook(func(ctx context.Context, cmd redis.Cmder) error {
		if calls.Add(1) == 1 {
			return errTimeout
		}
		<-release
		return nil
	})
	call := func() error { return hook(context.Background(), redis.NewStringCmd(context.Background(), "get", "k")) }
	_ = call()
	time.Sleep(5 * time.Millisecond)
	probe := make(chan error)
	go func() { probe <- call() }()
	for calls.Load() < 2 {
		time.Sleep(time.Millisecond)
	}
	if err := call(); !errors.Is(err, ErrDown) {
		t.Fatalf("second caller during the probe: %v", err)
	}
	close(release)
	if err := <-probe; err != nil || g.Down() {
		t.Fatalf("probe: %v, down=%v", err, g.Down())
	}
}

// Against the real Redis behind a proxy that stops forwarding: the first
// command waits one budget (go-redis's retry included), the next command
// and a pipeline fail at once, and once Redis answers again so does the
// client.
func TestStalledRedisCostsOneBudget(t *testing.T) {
	direct, prefix := redistest.New(t)
	proxy := stallproxy.Start(t, direct.Options().Addr)
	const budget = 300 * time.Millisecond
	rdb := NewClient(&redis.Options{Addr: proxy.Addr(), MaxRetries: 1},
		Options{Timeout: budget, Cooldown: 200 * time.Millisecond}, logging.Discard(), noop.NewMeterProvider().Meter(""))
	defer rdb.Close()
	ctx := context.Background()
	if err := rdb.Set(ctx, prefix+"k", "v", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	proxy.Pause()
	start := time.Now()
	err := rdb.Get(ctx, prefix+"k").Err()
	first := time.Since(start)
	t.Logf("first call during the stall: %v after %s", err, first)
	if err == nil || first > budget+200*time.Millisecond {
		t.Fatalf("first call: %v after %s (budget %s)", err, first, budget)
	}
	start = time.Now()
	err = rdb.Get(ctx, prefix+"k").Err()
	pipe := rdb.Pipeline()
	incr := pipe.Incr(ctx, prefix+"n")
	_, perr := pipe.Exec(ctx)
	if !errors.Is(err, ErrDown) || !errors.Is(perr, ErrDown) || !errors.Is(incr.Err(), ErrDown) {
		t.Fatalf("during the cooldown: %v, %v, %v", err, perr, incr.Err())
	}
	if took := time.Since(start); took > 50*time.Millisecond {
		t.Fatalf("calls during the cooldown took %s", took)
	}
	proxy.Resume()
	deadline := time.Now().Add(3 * time.Second)
	// The probe needs a new connection, whose set-up commands run through
	// the same hook: they must not be refused as "Redis is down".
	for rdb.Get(ctx, prefix+"k").Val() != "v" {
		if time.Now().After(deadline) {
			t.Fatal("client still failing 3 s after Redis came back")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
