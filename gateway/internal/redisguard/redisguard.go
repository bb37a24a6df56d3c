// Package redisguard bounds what an unreachable or stalled Redis costs the
// gateway's requests. A request touches Redis several times (key cache
// read, cache fill, quota, idempotency), and each of those would otherwise
// wait out its own timeout in turn: a stall of a few seconds cost the
// first requests about three seconds each. Here every call made through
// the client gets one time budget, retries included, and a circuit breaker
// (gobreaker) opens on the first call that fails for want of Redis
// (timeout, refused or reset connection): for a short cooldown every call
// on the client fails at once with ErrDown, so one stall costs a request
// at most one timeout, and the requests that follow none. Callers already
// degrade on errors (the key cache asks auth-billing, the quota counts
// locally, the idempotency store answers 503), so they need no change.
// After the cooldown a single call probes Redis; if Redis answers it, it
// is up again, otherwise the cooldown starts over.
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
	"github.com/sony/gobreaker/v2"
	"go.opentelemetry.io/otel/metric"
)

// ErrDown is returned without calling Redis while it is marked down.
var ErrDown = errors.New("redis: unavailable (a recent call failed; not waiting on it again yet)")

// Defaults of Options.
const (
	DefaultTimeout  = 500 * time.Millisecond
	DefaultCooldown = time.Second
)

// Options tune the guard.
type Options struct {
	// Timeout bounds one call (one command or one pipeline), including
	// connecting and go-redis's own retries.
	Timeout time.Duration
	// Cooldown is how long Redis stays marked down after a failed call
	// before one call probes it again.
	Cooldown time.Duration
}

// Guard is a redis.Hook; see the package comment.
type Guard struct {
	opt     Options
	log     *slog.Logger
	cb      *gobreaker.TwoStepCircuitBreaker[struct{}]
	outages metric.Int64Counter
	skipped metric.Int64Counter
	// tripped is set when Redis is marked down, for the call that failed
	// to log the outage with its error (the breaker's callback has neither
	// the error nor the call's context).
	tripped atomic.Bool
}

// New returns a Guard; zero options take the defaults.
func New(opt Options, log *slog.Logger, meter metric.Meter) *Guard {
	if opt.Timeout <= 0 {
		opt.Timeout = DefaultTimeout
	}
	if opt.Cooldown <= 0 {
		opt.Cooldown = DefaultCooldown
	}
	g := &Guard{opt: opt, log: log}
	g.outages, _ = meter.Int64Counter("kyc_gateway_redis_outages_total",
		metric.WithDescription("Times Redis was marked down after a failed call"))
	g.skipped, _ = meter.Int64Counter("kyc_gateway_redis_skipped_calls_total",
		metric.WithDescription("Redis calls failed at once because Redis was marked down"))
	g.cb = gobreaker.NewTwoStepCircuitBreaker[struct{}](gobreaker.Settings{
		Name:         "redis",
		MaxRequests:  1,            // one probe at a time once the cooldown is over
		Timeout:      opt.Cooldown, // how long the breaker stays open
		ReadyToTrip:  func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= 1 },
		IsSuccessful: answered,
		IsExcluded:   func(err error) bool { return err == errNoVerdict },
		OnStateChange: func(_ string, from, to gobreaker.State) {
			switch {
			case from == gobreaker.StateClosed && to == gobreaker.StateOpen:
				// An outage begins; a failed probe (half-open to open)
				// only extends it.
				g.outages.Add(context.Background(), 1)
				g.tripped.Store(true)
			case to == gobreaker.StateClosed:
				g.log.Info("redis answers again")
			}
		},
	})
	return g
}

// NewClient returns a client for opt whose calls are bounded and guarded
// by a new Guard. It sets opt's timeouts to the budget and makes go-redis
// honour context deadlines, which is how the budget reaches its retries.
func NewClient(opt *redis.Options, g Options, log *slog.Logger, meter metric.Meter) *redis.Client {
	guard := New(g, log, meter)
	opt.DialTimeout, opt.ReadTimeout, opt.WriteTimeout = guard.opt.Timeout, guard.opt.Timeout, guard.opt.Timeout
	opt.ContextTimeoutEnabled = true
	c := redis.NewClient(opt)
	c.AddHook(guard)
	return c
}

// Down reports whether Redis is currently marked down (cooling down, or
// waiting for a probe to get an answer).
func (g *Guard) Down() bool { return g.cb.State() != gobreaker.StateClosed }

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

// admitted marks the context of a call that was let through. go-redis
// runs the commands that set up a new connection (HELLO, ...) through the
// same hooks and context: they are part of that call, within its budget,
// and must not be refused as if Redis were down while a probe is out.
type admitted struct{}

// errNoVerdict is what the breaker is told of a call that got no answer
// because its caller gave up (or that was refused further down): it says
// nothing about Redis, so the breaker neither counts it as a failure nor
// as a success, and a probe that ends so leaves the way to the next one.
var errNoVerdict = errors.New("redisguard: no verdict")

// call runs one call within the budget if the breaker lets it through,
// and calls refuse (to set ErrDown on the commands) if not. The breaker
// ignores the outcome of a call let through before its last change of
// state: a call that began before Redis was marked down, or before a
// probe brought it back, leaves the decision to the calls since.
func (g *Guard) call(ctx context.Context, run func(context.Context) error, refuse func()) error {
	done, err := g.cb.Allow() // ErrOpenState or ErrTooManyRequests (a probe is out)
	if err != nil {
		g.skipped.Add(ctx, 1)
		refuse()
		return ErrDown
	}
	bctx, cancel := context.WithTimeout(ctx, g.opt.Timeout)
	err = run(context.WithValue(bctx, admitted{}, true))
	cancel()
	switch {
	case answered(err):
		done(err)
	case ctx.Err() != nil || errors.Is(err, ErrDown):
		done(errNoVerdict)
	default:
		done(err)
		if g.tripped.CompareAndSwap(true, false) {
			g.log.WarnContext(ctx, "redis unavailable; key cache, quota and idempotency degrade without waiting on it",
				"err", err, "retry_in", g.opt.Cooldown)
		}
	}
	return err
}

// answered reports whether Redis replied: no error, or an error reply
// (a missing key, NOSCRIPT, WRONGTYPE...) rather than a timeout or a
// broken connection.
func answered(err error) bool {
	var reply redis.Error // redis.Nil is one too
	return err == nil || errors.As(err, &reply)
}
