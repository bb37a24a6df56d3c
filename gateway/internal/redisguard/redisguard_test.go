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
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/kycfield/kyc/pkg/faultproxy"
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

// prober is a background probe the test answers: each probe announces
// itself on started, then returns what the test sends on answer. A probe
// starting is also the barrier that shows the previous one was handled.
type prober struct {
	started chan struct{}
	answer  chan error
}

func newProber() *prober { return &prober{started: make(chan struct{}), answer: make(chan error)} }

func (p *prober) probe(ctx context.Context) error {
	if ctx.Value(admitted{}) == nil {
		return errors.New("probe not marked as admitted: the guard would refuse it")
	}
	p.started <- struct{}{}
	return <-p.answer
}

// newGuard returns a guard in front of a fake Redis, its prober and a
// call through it.
func newGuard(t *testing.T, log *slog.Logger, meter metric.Meter) (*Guard, *fake, *prober, func(context.Context) error) {
	t.Helper()
	p := newProber()
	g := New(Options{Timeout: time.Second, ProbeInterval: time.Millisecond}, p.probe, log, meter)
	f := &fake{}
	hook := g.ProcessHook(f.process)
	call := func(ctx context.Context) error { return hook(ctx, redis.NewStringCmd(ctx, "get", "k")) }
	return g, f, p, call
}

// eventuallyUp waits for the guard to mark Redis up after a good probe.
func eventuallyUp(t *testing.T, g *Guard) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); g.Down(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("still down 10 s after a probe got an answer")
		}
	}
}

func TestRepliesNeverMarkRedisDown(t *testing.T) {
	g, f, _, call := newGuard(t, logging.Discard(), noop.NewMeterProvider().Meter(""))
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

// One failed call marks Redis down; every call after it fails at once
// without reaching Redis, while a probe is out and after a probe that
// failed; only the background probe talks to Redis, and once it gets an
// answer calls go through again.
func TestOnlyTheFirstCallWaitsUntilTheProbeSeesRedis(t *testing.T) {
	g, f, p, call := newGuard(t, logging.Discard(), noop.NewMeterProvider().Meter(""))
	ctx := context.Background()
	f.set(errTimeout)
	if err := call(ctx); !errors.Is(err, errTimeout) {
		t.Fatal(err)
	}
	if !g.Down() {
		t.Fatal("a timeout did not mark Redis down")
	}
	refusedAll := func(when string) {
		t.Helper()
		for i := range 19 {
			if err := call(ctx); !errors.Is(err, ErrDown) {
				t.Fatalf("%s, call %d: %v", when, i+2, err)
			}
		}
	}
	refusedAll("before the first probe")
	<-p.started
	refusedAll("while the probe is out")
	p.answer <- errTimeout
	<-p.started // the failed probe was handled: another one is out
	refusedAll("after a failed probe")
	if n := f.calls.Load(); n != 1 {
		t.Fatalf("Redis reached by %d client calls while down, want the first only", n)
	}
	f.set(nil)
	p.answer <- nil
	eventuallyUp(t, g)
	for range 3 {
		if err := call(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if n := f.calls.Load(); n != 4 {
		t.Fatalf("%d calls reached Redis, want the first and the 3 after it came back", n)
	}
}

// A failure of a call let through before Redis was marked down, or before
// the probe brought it back, decides nothing: the outage it belonged to is
// already known (and over).
func TestAFailureFromBeforeTheLastChangeIsIgnored(t *testing.T) {
	p := newProber()
	g := New(Options{Timeout: time.Minute, ProbeInterval: time.Millisecond}, p.probe, logging.Discard(), noop.NewMeterProvider().Meter(""))
	inside, release := make(chan struct{}), make(chan struct{})
	var slow atomic.Bool
	hook := g.ProcessHook(func(ctx context.Context, cmd redis.Cmder) error {
		if slow.CompareAndSwap(true, false) {
			close(inside)
			<-release
		}
		return errTimeout
	})
	call := func() error { return hook(context.Background(), redis.NewStringCmd(context.Background(), "get", "k")) }
	slow.Store(true)
	straggler := make(chan error)
	go func() { straggler <- call() }()
	<-inside        // let through while Redis was up
	_ = call()      // another call marks Redis down
	<-p.started     // the probe is out
	p.answer <- nil // and Redis answers
	eventuallyUp(t, g)
	close(release) // the straggler now fails, from before both changes
	if err := <-straggler; !errors.Is(err, errTimeout) {
		t.Fatal(err)
	}
	if g.Down() {
		t.Fatal("a failure from before the outage marked Redis down again")
	}
}

// An outage is counted and logged once, however many probes fail before
// Redis answers again; every refused call is counted.
func TestOutageMetricsAndLogs(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	var logs syncBuffer
	g, f, p, call := newGuard(t, slog.New(slog.NewTextHandler(&logs, nil)), sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)).Meter(""))
	ctx := context.Background()
	counters := func() (outages, skipped int64) {
		var rm metricdata.ResourceMetrics
		if err := reader.Collect(ctx, &rm); err != nil {
			t.Fatal(err)
		}
		for _, sm := range rm.ScopeMetrics {
			for _, m := range sm.Metrics {
				for _, dp := range m.Data.(metricdata.Sum[int64]).DataPoints {
					switch m.Name {
					case "kyc_gateway_redis_outages_total":
						outages += dp.Value
					case "kyc_gateway_redis_skipped_calls_total":
						skipped += dp.Value
					}
				}
			}
		}
		return outages, skipped
	}
	f.set(errTimeout)
	_ = call(ctx) // an outage begins
	_ = call(ctx) // skipped
	<-p.started
	p.answer <- errTimeout // a failed probe: the same outage
	<-p.started
	_ = call(ctx) // skipped
	if o, s := counters(); o != 1 || s != 2 {
		t.Fatalf("one outage with a failed probe: outages %d, skipped %d", o, s)
	}
	f.set(nil)
	p.answer <- nil // Redis answers again
	eventuallyUp(t, g)
	f.set(errTimeout)
	_ = call(ctx) // a second outage
	if o, s := counters(); o != 2 || s != 2 {
		t.Fatalf("two outages: outages %d, skipped %d", o, s)
	}
	out := logs.String()
	if w, i := strings.Count(out, "level=WARN"), strings.Count(out, "level=INFO"); w != 2 || i != 1 || !strings.Contains(out, "i/o timeout") {
		t.Fatalf("%d warnings, %d infos:\n%s", w, i, out)
	}
	<-p.started // the second outage's probe: answer it so it ends
	p.answer <- nil
}

// syncBuffer is a log sink the probe's goroutine and the test share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// blackHole is a Redis that stalls: it accepts connections and never
// answers. It counts the connections it accepted.
type blackHole struct {
	ln       net.Listener
	accepted atomic.Int32
}

func newBlackHole(t *testing.T) *blackHole {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b := &blackHole{ln: ln}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			b.accepted.Add(1)
			mu.Lock()
			conns = append(conns, c) // held open, never read or written
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return b
}

// Against a Redis that accepts and never answers: the first command gets
// no answer, and the 2nd to 20th fail at once with ErrDown without even
// connecting (the probe is not due within the test).
func TestAStalledRedisIsWaitedForOnce(t *testing.T) {
	hole := newBlackHole(t)
	rdb := NewClient(&redis.Options{Addr: hole.ln.Addr().String(), MaxRetries: 1},
		Options{Timeout: 200 * time.Millisecond, ProbeInterval: time.Hour}, logging.Discard(), noop.NewMeterProvider().Meter(""))
	defer rdb.Close()
	ctx := context.Background()
	if err := rdb.Get(ctx, "k").Err(); err == nil || errors.Is(err, ErrDown) {
		t.Fatalf("first call to a stalled Redis: %v", err)
	}
	dialled := hole.accepted.Load()
	for i := 2; i <= 20; i++ {
		pipe := rdb.Pipeline()
		incr := pipe.Incr(ctx, "n")
		_, perr := pipe.Exec(ctx)
		if err := rdb.Get(ctx, "k").Err(); !errors.Is(err, ErrDown) || !errors.Is(perr, ErrDown) || !errors.Is(incr.Err(), ErrDown) {
			t.Fatalf("call %d during the stall: %v, pipeline %v, %v", i, err, perr, incr.Err())
		}
	}
	if n := hole.accepted.Load(); n != dialled || n == 0 {
		t.Fatalf("the stalled Redis accepted %d connections, %d of them after the first call", n, n-dialled)
	}
}

// Against the real Redis behind a proxy that stops forwarding: calls fail
// at once while it stalls, and once Redis answers again the background
// probe, whose new connection's set-up commands run through the same hook
// and must not be refused as "Redis is down", lets them through.
func TestTheProbeBringsAStalledRedisBack(t *testing.T) {
	direct, prefix := redistest.New(t)
	proxy := faultproxy.Start(t, direct.Options().Addr)
	rdb := NewClient(&redis.Options{Addr: proxy.Addr(), MaxRetries: 1},
		Options{Timeout: 200 * time.Millisecond, ProbeInterval: 20 * time.Millisecond}, logging.Discard(), noop.NewMeterProvider().Meter(""))
	defer rdb.Close()
	ctx := context.Background()
	if err := rdb.Set(ctx, prefix+"k", "v", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	proxy.Pause()
	if err := rdb.Get(ctx, prefix+"k").Err(); err == nil || errors.Is(err, ErrDown) {
		t.Fatalf("first call during the stall: %v", err)
	}
	if err := rdb.Get(ctx, prefix+"k").Err(); !errors.Is(err, ErrDown) {
		t.Fatalf("second call during the stall: %v", err)
	}
	proxy.Resume()
	for deadline := time.Now().Add(10 * time.Second); rdb.Get(ctx, prefix+"k").Val() != "v"; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("client still failing 10 s after Redis came back")
		}
	}
}
