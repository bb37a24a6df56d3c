// Package redisguard bounds what an unreachable or stalled Redis costs the
// gateway's requests. A request touches Redis several times (key cache
// read, cache fill, quota, idempotency), and each of those would otherwise
// wait out its own timeout in turn: a stall of a few seconds cost the
// first requests about three seconds each. Here every call made through
// the client gets one time budget, retries included, and the first call
// that fails for want of Redis (timeout, refused or reset connection)
// marks Redis down: from then on every call fails at once with ErrDown,
// and a background probe (a PING every ProbeInterval) is the only thing
// that talks to Redis until it answers. So a stall costs one request one
// timeout, and no later request any: an earlier version let a client's
// call be the probe after each cooldown, and during a long stall every
// such caller waited the timeout again. Callers already degrade on errors
// (the key cache asks auth-billing, the quota counts locally, the
// idempotency store answers 503), so they need no change.
//
// It is a go-redis hook, so it covers every user of the client at once
// and no call can forget it.
package redisguard

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel/metric"
)

// ErrDown is returned without calling Redis while it is marked down.
var ErrDown = errors.New("redis: unavailable (a recent call failed; not waiting on it until a probe gets an answer)")

// Defaults of Options.
const (
	DefaultTimeout       = 500 * time.Millisecond
	DefaultProbeInterval = time.Second
)

// Options tune the guard.
type Options struct {
	// Timeout bounds one call (one command or one pipeline), including
	// connecting and go-redis's own retries, and one probe.
	Timeout time.Duration
	// ProbeInterval is how long the background probe waits before each
	// PING while Redis is marked down.
	ProbeInterval time.Duration
}

// Prober asks Redis whether it answers, bypassing the guard (NewClient
// makes it a PING through the guarded client). redis.ErrClosed means the
// client is closed: the probe stops.
type Prober func(context.Context) error

// Guard is a redis.Hook; see the package comment.
type Guard struct {
	opt     Options
	probe   Prober
	log     *slog.Logger
	outages metric.Int64Counter
	skipped metric.Int64Counter
	// state counts changes of state: even means up, odd down. A call
	// remembers the state it was let through in, so that a failure seen
	// after a later change (a call that began before Redis was marked
	// down, or before the probe brought it back) decides nothing.
	state atomic.Uint64
}

// New returns a Guard whose background probe is probe; zero options take
// the defaults.
func New(opt Options, probe Prober, log *slog.Logger, meter metric.Meter) *Guard {
	if opt.Timeout <= 0 {
		opt.Timeout = DefaultTimeout
	}
	if opt.ProbeInterval <= 0 {
		opt.ProbeInterval = DefaultProbeInterval
	}
	g := &Guard{opt: opt, probe: probe, log: log}
	g.outages, _ = meter.Int64Counter("kyc_gateway_redis_outages_total",
		metric.WithDescription("Times Redis was marked down after a failed call"))
	g.skipped, _ = meter.Int64Counter("kyc_gateway_redis_skipped_calls_total",
		metric.WithDescription("Redis calls failed at once because Redis was marked down"))
	return g
}

// NewClient returns a client for opt whose calls are bounded and guarded
// by a new Guard probing through the client itself. It sets opt's
// timeouts to the budget and makes go-redis honour context deadlines,
// which is how the budget reaches its retries.
func NewClient(opt *redis.Options, g Options, log *slog.Logger, meter metric.Meter) *redis.Client {
	var c *redis.Client
	guard := New(g, func(ctx context.Context) error { return c.Ping(ctx).Err() }, log, meter)
	opt.DialTimeout, opt.ReadTimeout, opt.WriteTimeout = guard.opt.Timeout, guard.opt.Timeout, guard.opt.Timeout
	opt.ContextTimeoutEnabled = true
	c = redis.NewClient(opt)
	c.AddHook(guard)
	return c
}

// Down reports whether Redis is currently marked down.
func (g *Guard) Down() bool { return g.state.Load()&1 == 1 }

// DialHook implements redis.Hook; dials run inside a guarded call.
func (g *Guard) DialHook(next redis.DialHook) redis.DialHook { return next }

// ProcessHook implements redis.Hook.
func (g *Guard) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if ctx.Value(admitted{}) != nil {
			return next(ctx, cmd)
		}
		return g.call(ctx, func(bctx context.Context) error { return next(bctx, cmd) }, func() { cmd.SetErr(ErrDown) })
	}
}

// ProcessPipelineHook implements redis.Hook (pipelines and transactions).
func (g *Guard) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if ctx.Value(admitted{}) != nil {
			return next(ctx, cmds)
		}
		return g.call(ctx, func(bctx context.Context) error { return next(bctx, cmds) }, func() {
			for _, c := range cmds {
				c.SetErr(ErrDown)
			}
		})
	}
}

// admitted marks the context of a call that was let through, and the
// probe's. go-redis runs the commands that set up a new connection
// (HELLO, ...) through the same hooks and context: they are part of that
// call, within its budget, and must not be refused as if Redis were down.
type admitted struct{}

// call runs one call within the budget while Redis is up, and calls
// refuse (to set ErrDown on the commands) while it is down.
func (g *Guard) call(ctx context.Context, run func(context.Context) error, refuse func()) error {
	seen := g.state.Load()
	if seen&1 == 1 {
		g.skipped.Add(ctx, 1)
		refuse()
		return ErrDown
	}
	bctx, cancel := context.WithTimeout(ctx, g.opt.Timeout)
	err := run(context.WithValue(bctx, admitted{}, true))
	cancel()
	// A reply, a caller that gave up, or a refusal further down says
	// nothing about Redis.
	if answered(err) || ctx.Err() != nil || errors.Is(err, ErrDown) {
		return err
	}
	if g.state.CompareAndSwap(seen, seen+1) {
		g.outages.Add(ctx, 1)
		g.log.WarnContext(ctx, "redis unavailable; key cache, quota and idempotency degrade without waiting on it until a probe gets an answer",
			"err", err, "probe_every", g.opt.ProbeInterval)
		go g.probeUntilUp(seen + 1)
	}
	return err
}

// probeUntilUp PINGs Redis every ProbeInterval, off any request, until it
// answers; then it marks Redis up (state down+1).
func (g *Guard) probeUntilUp(down uint64) {
	t := time.NewTimer(g.opt.ProbeInterval)
	defer t.Stop()
	for {
		<-t.C
		ctx, cancel := context.WithTimeout(context.WithValue(context.Background(), admitted{}, true), g.opt.Timeout)
		err := g.probe(ctx)
		cancel()
		switch {
		case errors.Is(err, redis.ErrClosed):
			return
		case answered(err):
			// Only this probe moves Redis from down to up, so the swap
			// cannot fail; the log comes first so that it precedes any
			// call that sees Redis up.
			g.log.Info("redis answers again")
			g.state.CompareAndSwap(down, down+1)
			return
		}
		t.Reset(g.opt.ProbeInterval)
	}
}

// answered reports whether Redis replied: no error, or an error reply
// (a missing key, NOSCRIPT, WRONGTYPE...) rather than a timeout or a
// broken connection.
func answered(err error) bool {
	var reply redis.Error // redis.Nil is one too
	return err == nil || errors.As(err, &reply)
}
