// Package admit is the gateway's admission control for the lender API:
// at most Limit API requests in flight per gateway process, at most
// PerOrg of them for one organization, and a short bounded wait for a
// slot. A request that gets none in time is answered at once with 503
// SERVICE_OVERLOADED and a Retry-After, before it has done anything (no
// quota counted, no Idempotency-Key claimed, nothing forwarded), so a
// client's retry under the same key is a first attempt.
//
// Why bound the requests in flight rather than a rate: above capacity
// the services' work queues behind the pipeline's on the same cores, and
// every request admitted adds to every other's wait (BENCHMARKS §18s: a
// burst at twice capacity left POSTs answered after up to 10 s). With a
// bound, an admitted request waits for at most Limit others; the rest are
// told at once to come back. The bound adapts to whatever the services'
// capacity is at the moment, which a fixed rate cannot.
//
// What is admitted here: the lender API, requests authenticated by an API
// key (edge's apiKey pipeline, after authentication). Never shed: the
// field agents' app and API (an agent at a door must not be refused
// because a bank is bursting), the operations console, the dashboard's
// pages and its own API, a signed-in dashboard member's calls to /api/v1
// (a person at a page, a few requests at a time, who must be able to watch
// their organization's burst), the public report verification (limited per
// IP already), health and metrics.
//
// Why 503 and not 429: 429 tells a client it has sent too much (its
// quota, answered with QUOTA_EXCEEDED); 503 tells it the platform is
// busy whatever it sent, as Stripe's load shedders answer.
package admit

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/metric"
	"golang.org/x/sync/semaphore"

	"github.com/kycfield/kyc/pkg/apperr"
)

// CodeOverloaded is the error code of a shed request.
const CodeOverloaded = "SERVICE_OVERLOADED"

// Config bounds the lender-API requests one gateway process serves at
// once.
type Config struct {
	// Limit is how many requests may be in flight; 0 or less admits all.
	Limit int
	// PerOrg is how many of them one organization may hold, so that one
	// organization's burst leaves slots for the others; 0 means three
	// quarters of Limit (at least 1). It is capped at Limit.
	PerOrg int
	// Wait is how long a request may wait for a slot before it is shed.
	Wait time.Duration
	// RetryAfter is the least a shed request is told to wait, rounded up
	// to whole seconds (at least 1); the more requests are being shed
	// against those admitted, the longer it is told (pace), up to 30 s.
	RetryAfter time.Duration
}

// Admitter hands out the slots. The zero of Config's Limit makes one that
// admits every request.
type Admitter struct {
	all    *semaphore.Weighted
	perOrg int64
	wait   time.Duration
	shed   metric.Int64Counter
	held   atomic.Int64 // slots held, for kyc_gateway_api_in_flight
	err    *apperr.Error
	retry  pace // how long a shed request is told to stay away

	mu   sync.Mutex
	orgs map[string]*orgSlots
}

// orgSlots is one organization's share, kept while a request of the
// organization holds or waits for a slot.
type orgSlots struct {
	sem   *semaphore.Weighted
	users int // requests holding or waiting for one of sem's slots
}

// New builds an Admitter; shed requests are counted on meter as
// kyc_gateway_shed_total, the slots held shown as
// kyc_gateway_api_in_flight.
func New(cfg Config, meter metric.Meter) *Admitter {
	a := &Admitter{wait: cfg.Wait, orgs: map[string]*orgSlots{}}
	a.shed, _ = meter.Int64Counter("kyc_gateway_shed_total",
		metric.WithDescription("Lender-API requests answered 503 SERVICE_OVERLOADED because no slot was free in time"))
	a.shed.Add(context.Background(), 0) // exported from the start, so that rate() starts at 0
	_, _ = meter.Int64ObservableGauge("kyc_gateway_api_in_flight",
		metric.WithDescription("Lender-API requests holding an admission slot (API_MAX_IN_FLIGHT bounds them)"),
		metric.WithInt64Callback(func(_ context.Context, o metric.Int64Observer) error {
			o.Observe(a.held.Load())
			return nil
		}))
	if cfg.Limit <= 0 {
		return a
	}
	a.all = semaphore.NewWeighted(int64(cfg.Limit))
	per := cfg.PerOrg
	if per <= 0 {
		per = max(cfg.Limit*3/4, 1)
	}
	a.perOrg = int64(min(per, cfg.Limit))
	a.retry = pace{least: max(int64((cfg.RetryAfter+time.Second-1)/time.Second), 1), now: time.Now}
	a.err = apperr.New(apperr.KindUnavailable, CodeOverloaded,
		"The platform is busy; retry after the Retry-After delay with the same Idempotency-Key")
	return a
}

// Acquire takes a slot for a request of org, waiting at most Wait (or
// until ctx ends). It returns the function that gives the slot back, or
// the 503 SERVICE_OVERLOADED error to answer when no slot came in time.
func (a *Admitter) Acquire(ctx context.Context, org string) (release func(), err error) {
	if a.all == nil {
		return noop, nil
	}
	o := a.join(org)
	if !o.sem.TryAcquire(1) || !a.tryAll(o) {
		if !a.waitFor(ctx, o) {
			a.leave(org, o)
			a.shed.Add(ctx, 1)
			return nil, a.err.WithHeader("Retry-After", strconv.FormatInt(a.retry.shed(), 10))
		}
	}
	a.retry.admitted()
	a.held.Add(1)
	return func() {
		a.held.Add(-1)
		a.all.Release(1)
		o.sem.Release(1)
		a.leave(org, o)
	}, nil
}

// tryAll takes a global slot at once when one is free, giving o's back
// when none is (waitFor then takes both again).
func (a *Admitter) tryAll(o *orgSlots) bool {
	if a.all.TryAcquire(1) {
		return true
	}
	o.sem.Release(1)
	return false
}

// waitFor waits at most Wait for the organization's slot, then a global
// one, and reports whether it holds both.
func (a *Admitter) waitFor(ctx context.Context, o *orgSlots) bool {
	if a.wait <= 0 {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, a.wait)
	defer cancel()
	if o.sem.Acquire(ctx, 1) != nil {
		return false
	}
	if a.all.Acquire(ctx, 1) != nil {
		o.sem.Release(1)
		return false
	}
	return true
}

func (a *Admitter) join(org string) *orgSlots {
	a.mu.Lock()
	defer a.mu.Unlock()
	o := a.orgs[org]
	if o == nil {
		o = &orgSlots{sem: semaphore.NewWeighted(a.perOrg)}
		a.orgs[org] = o
	}
	o.users++
	return o
}

// leave forgets an organization's share once no request holds or waits
// for it, so the map holds only the organizations being served.
func (a *Admitter) leave(org string, o *orgSlots) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if o.users--; o.users == 0 {
		delete(a.orgs, org)
	}
}

func noop() {}

// maxRetryAfter bounds the Retry-After of a shed request: a client told
// more would think the platform down.
const maxRetryAfter = 30

// pace says how long a shed request should stay away. A fixed second
// had every refused client back a second later, and at twice capacity
// answering those retries (about 30 a customer, BENCHMARKS §18t) took the
// CPU the admitted requests needed. So the delay grows with the
// overload: the requests refused over the last second or two, divided by
// those admitted, is roughly how many seconds of the platform's present
// throughput the refused demand would take; told that, the refused come
// back spread over the time the platform needs to serve them, a few
// times each rather than every second. It is never less than the
// configured RetryAfter nor more than maxRetryAfter.
type pace struct {
	least int64 // seconds
	now   func() time.Time

	mu                    sync.Mutex
	window                time.Time // start of the current one-second window
	admits, sheds         int64     // in the current window
	prevAdmits, prevSheds int64     // in the window before it (zero if it was not the one just before)
}

// roll starts a new window when the current one is over; mu is held.
func (p *pace) roll() {
	now := p.now()
	switch gone := now.Sub(p.window); {
	case gone < time.Second:
		return
	case gone < 2*time.Second:
		p.prevAdmits, p.prevSheds = p.admits, p.sheds
	default:
		p.prevAdmits, p.prevSheds = 0, 0
	}
	p.window, p.admits, p.sheds = now, 0, 0
}

func (p *pace) admitted() {
	p.mu.Lock()
	p.roll()
	p.admits++
	p.mu.Unlock()
}

// shed counts a refusal and returns the seconds to tell it to wait.
func (p *pace) shed() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.roll()
	p.sheds++
	refused, served := p.prevSheds+p.sheds, max(p.prevAdmits+p.admits, 1)
	return min(max((refused+served-1)/served, p.least), maxRetryAfter)
}
