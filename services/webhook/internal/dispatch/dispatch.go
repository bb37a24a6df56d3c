package dispatch

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/kycfield/kyc/pkg/backoff"
	"github.com/kycfield/kyc/pkg/pgdb"
	"github.com/kycfield/kyc/pkg/server"
	"github.com/kycfield/kyc/pkg/telemetry"
	"github.com/kycfield/kyc/services/webhook/internal/postgres"
	"github.com/kycfield/kyc/services/webhook/internal/webhook"
)

// Config tunes the dispatcher.
type Config struct {
	Workers      int // deliveries in flight per process
	PerEndpoint  int // in flight per endpoint, across replicas
	Schedule     webhook.Schedule
	DisableAfter time.Duration // an endpoint failing this long is disabled
	Poll         time.Duration // shortest pause between looks for due retries (idle: until the next is due)
	// Gather is how long after a slot frees the dispatcher waits before it
	// claims again, so that the slots freed meanwhile are filled by one
	// claim (default DefaultGather). New deliveries (the consumer's NOTIFY)
	// are claimed at once.
	Gather time.Duration
}

// DefaultGather is Config.Gather's default: at 1,000 deliveries a second
// a claim per freed slot was one claim transaction per delivery, and the
// claims took most of Postgres's CPU (BENCHMARKS.md, 18i); a claim every
// few milliseconds at most fills the same slots for a few milliseconds of
// latency, and only while deliveries are in flight.
const DefaultGather = 5 * time.Millisecond

// Dispatcher sends due deliveries.
type Dispatcher struct {
	cfg    Config
	store  *postgres.Store
	pool   *pgxpool.Pool
	client *http.Client
	log    *slog.Logger
	tracer trace.Tracer
	tried  metric.Int64Counter
	// claims and claimed count claim transactions and the deliveries they
	// took (Claims).
	claims, claimed atomic.Int64
}

// MetricAttempts counts attempts by result (deploy/grafana queries it).
const MetricAttempts = "kyc_webhook_attempts_total"

// New returns a dispatcher.
func New(cfg Config, store *postgres.Store, pool *pgxpool.Pool, client *http.Client, log *slog.Logger) *Dispatcher {
	d := &Dispatcher{cfg: cfg, store: store, pool: pool, client: client, log: log}
	return d.WithTelemetry(noop.NewTracerProvider(), metricnoop.NewMeterProvider().Meter(""))
}

// WithTelemetry makes every attempt a span of the trace of the event
// that made its message (the client's span is its child), and counts
// attempts by result.
func (d *Dispatcher) WithTelemetry(tp trace.TracerProvider, meter metric.Meter) *Dispatcher {
	d.tracer = tp.Tracer("github.com/kycfield/kyc/services/webhook/dispatch")
	d.tried, _ = meter.Int64Counter(MetricAttempts,
		metric.WithDescription("Webhook delivery attempts by result: succeeded, failed_status (a non-2xx answer), failed_no_response"))
	return d
}

// lease outlives any attempt (the client's timeout is shorter), so a
// lease only runs out when its replica died.
const lease = time.Minute

// Claims reports how many claim transactions the dispatcher has made and
// how many deliveries they took: what a delivery costs in claims.
func (d *Dispatcher) Claims() (claims, claimed int64) {
	return d.claims.Load(), d.claimed.Load()
}

// Run claims and sends deliveries until ctx ends, then waits for the
// attempts in flight (see deliver). It claims when the schedule NOTIFYs,
// a Gather after an attempt frees a slot, and every Poll. Each claim
// takes up to every free slot at once (within each endpoint's limit), so
// a hanging endpoint holds at most PerEndpoint slots, each for at most
// the client's timeout.
func (d *Dispatcher) Run(ctx context.Context) error {
	wake := make(chan struct{}, 1)
	gather := d.cfg.Gather
	if gather <= 0 {
		gather = DefaultGather
	}
	freed := &gatherer{wake: wake, after: gather}
	var wg sync.WaitGroup
	defer wg.Wait()
	slots := make(chan struct{}, d.cfg.Workers)
	claim := func(ctx context.Context) (bool, error) {
		free := d.cfg.Workers - len(slots)
		if free == 0 {
			return false, nil
		}
		jobs, err := d.store.Claim(ctx, free, d.cfg.PerEndpoint, lease)
		if err != nil && ctx.Err() == nil {
			d.log.Warn("webhook claim failed", "err", err)
		}
		d.claims.Add(1)
		d.claimed.Add(int64(len(jobs)))
		for _, j := range jobs {
			slots <- struct{}{}
			wg.Add(1)
			go func() {
				defer wg.Done()
				d.deliver(ctx, j)
				<-slots
				freed.signal()
			}()
		}
		return len(jobs) == free, nil // a full claim: there may be more due
	}
	return pgdb.Worker{Pool: d.pool, Channel: postgres.NotifyChannel, Poll: d.cfg.Poll, Wake: wake, Work: claim, Next: d.store.NextDue,
		Log: d.log, Name: "webhook dispatcher"}.Run(ctx)
}

// deliver makes one attempt and records it. An attempt under way when the
// process is told to stop is finished and recorded (server.Hand: the
// client's timeout is shorter than the drain), since giving it back would
// have another replica send what the receiver may already have; only one
// cut short by the drain deadline is given back, unrecorded.
func (d *Dispatcher) deliver(ctx context.Context, j postgres.Job) {
	hand, done := server.Hand(ctx)
	defer done()
	hand, span := d.tracer.Start(telemetry.WithTraceparent(hand, j.Traceparent), "webhook delivery",
		trace.WithAttributes(attribute.String("kyc.webhook.delivery_id", j.Delivery.ID), attribute.String("kyc.webhook.endpoint_id", j.Endpoint.ID),
			attribute.String("kyc.event.type", j.Message.Type), attribute.Int("kyc.webhook.attempt", j.Delivery.Attempts+1)))
	defer span.End()
	a := Send(hand, d.client, j.Endpoint, j.Message, time.Now())
	a.Trigger = webhook.TriggerScheduled
	if j.Manual {
		a.Trigger = webhook.TriggerManual
	}
	bg, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if hand.Err() != nil {
		if err := d.store.Release(bg, j.Delivery.ID); err != nil {
			d.log.WarnContext(ctx, "webhook release failed; the lease will run out", "delivery", j.Delivery.ID, "err", err)
		}
		return
	}
	result := attemptResult(a)
	if !a.Succeeded {
		span.SetStatus(codes.Error, result)
	}
	d.tried.Add(ctx, 1, metric.WithAttributes(attribute.String("result", result)))
	if err := d.store.Complete(bg, j, a, d.cfg.Schedule, d.cfg.DisableAfter); err != nil {
		// The lease runs out and the delivery is attempted again: at
		// least once, never lost.
		d.log.WarnContext(ctx, "webhook attempt not recorded", "delivery", j.Delivery.ID, "err", err)
	}
}

// attemptResult names an attempt's result for the metric.
func attemptResult(a webhook.Attempt) string {
	switch {
	case a.Succeeded:
		return "succeeded"
	case a.StatusCode != 0:
		return "failed_status"
	}
	return "failed_no_response"
}

// gatherer wakes the claim loop once, after, for every slot freed within
// that time: the slots freed together are claimed together.
type gatherer struct {
	wake  chan struct{}
	after time.Duration
	mu    sync.Mutex
	armed bool
}

// signal notes a freed slot.
func (g *gatherer) signal() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.armed {
		return
	}
	g.armed = true
	time.AfterFunc(g.after, func() {
		g.mu.Lock()
		g.armed = false
		g.mu.Unlock()
		signal(g.wake)
	})
}

func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// Prune deletes, every hour, the log of deliveries that ended longer ago
// than retention (see postgres.Store.Prune).
func (d *Dispatcher) Prune(retention time.Duration) func(context.Context) error {
	return func(ctx context.Context) error {
		for {
			if n, err := d.store.Prune(ctx, time.Now().Add(-retention)); err != nil && ctx.Err() == nil {
				d.log.Warn("webhook log pruning failed", "err", err)
			} else if n > 0 {
				d.log.Info("webhook log pruned", "deliveries", n)
			}
			if !backoff.Sleep(ctx, time.Hour) {
				return nil
			}
		}
	}
}
