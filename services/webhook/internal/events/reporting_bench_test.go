package events_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"flag"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/ids"
	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/pkg/keyring"
	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/pkg/outbox"
	"github.com/kycfield/kyc/pkg/pgtest"
	"github.com/kycfield/kyc/services/webhook/internal/events"
	"github.com/kycfield/kyc/services/webhook/internal/postgres"
	"github.com/kycfield/kyc/services/webhook/migrations"
)

var (
	reportCustomers = flag.Int("report-customers", 2000, "customers whose report.generated the benchmark feeds per iteration")
	reportHog       = flag.Int("report-hog", 0, "goroutines kept busy beside the consumer (a saturated platform process)")
)

// BenchmarkReportReady feeds -report-customers report.generated events
// through the real webhook.reporting consumer, as its Run applies them
// (the subscription's Batch events per transaction, one at a time when
// Batch is 1), against real PostgreSQL, each customer's address updates
// and outcome stored first by the verification consumer, as in a burst.
// It reports the consumer's rate, and, measured in the same conditions,
// what a bare round trip and an empty inbox transaction take: the parts
// an event's cost is made of, and how fast the verification consumer
// stored the customers' events (four each) in the same conditions.
// -report-hog keeps goroutines busy beside both, as the burst's
// rendering and consumers keep a 2-core machine.
//
//	go test -run '^$' -bench ReportReady -benchtime 1x -count 5 ./internal/events/
func BenchmarkReportReady(b *testing.B) {
	ctx := context.Background()
	pool, _ := pgtest.NewDB(b, migrations.Set(), inbox.Migration(), outbox.Migration())
	key := make([]byte, 32)
	keys, err := keyring.Parse("t1:"+base64.StdEncoding.EncodeToString(key), "t1")
	if err != nil {
		b.Fatal(err)
	}
	store := postgres.New(pool, keys, "webhook-events", events.Disabled)
	subs := events.Subscriptions(store.Within, "https://api.example.com")
	org, env := ids.New("org"), "live"
	// A lender's receiver, as the sandbox benchmark registers it.
	if _, err := pool.Exec(ctx, `INSERT INTO endpoints (id, org_id, env, url, events, secret, created_at, updated_at)
		VALUES ($1, $2, $3, 'https://hooks.example.com/kyc', $4, '\x00', now(), now())`,
		ids.New("wh"), org, env, []string{"verification.completed", "verification.rejected", "report.ready"}); err != nil {
		b.Fatal(err)
	}
	verification, vBatch := consumerOf(b, pool, subs, "webhook.verification")
	reporting, rBatch := consumerOf(b, pool, subs, "webhook.reporting")
	var rate, perEvent float64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		var outcomes, reports []event.Event
		for range *reportCustomers {
			cus := ids.New("cus")
			outcomes = append(outcomes, visit(b, org, env, cus)...)
			reports = append(reports, newEvent(b, "report.generated", org, env, map[string]any{"customerId": cus,
				"reportId": ids.New("rep"), "version": 1, "status": "VERIFIED", "generatedAt": time.Now().UTC()}))
		}
		stop := hog(*reportHog)
		vStart := time.Now()
		feed(b, verification, vBatch, outcomes)
		vTook := time.Since(vStart)
		b.StartTimer()
		start := time.Now()
		feed(b, reporting, rBatch, reports)
		took := time.Since(start)
		b.StopTimer()
		rtt, empty := probe(b, pool)
		stop()
		rate += float64(len(reports)) / took.Seconds()
		perEvent += float64(took.Microseconds()) / float64(len(reports)) / 1000
		b.Logf("batch %d: %d reports in %s (%.0f/s, %.2f ms each); round trip %s, empty inbox transaction %s (medians); "+
			"the verification consumer stored their customers' %d events in %s (%.0f customers/s)",
			rBatch, len(reports), took.Round(time.Millisecond), float64(len(reports))/took.Seconds(),
			float64(took.Microseconds())/float64(len(reports))/1000, rtt, empty,
			len(outcomes), vTook.Round(time.Millisecond), float64(len(reports))/vTook.Seconds())
		b.StartTimer()
	}
	b.ReportMetric(rate/float64(b.N), "events/s")
	b.ReportMetric(perEvent/float64(b.N), "ms/event")
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM messages WHERE event_type = 'report.ready'`).Scan(&n); err != nil || n != b.N**reportCustomers {
		b.Fatalf("%d report.ready stored (%v), want %d", n, err, b.N**reportCustomers)
	}
}

// consumerOf is the subscription group's consumer as the platform builds
// it, and its batch size.
func consumerOf(b *testing.B, pool *pgxpool.Pool, subs []inbox.Subscription, group string) (*inbox.Consumer, int) {
	i := slices.IndexFunc(subs, func(s inbox.Subscription) bool { return s.Group == group })
	if i < 0 {
		b.Fatalf("no subscription %s", group)
	}
	s := subs[i]
	return inbox.New(group, nil, pool, logging.Discard(), inbox.Handle(s.Routes...)).WithBatchHandler(s.ApplyBatch), max(s.Batch, 1)
}

// feed applies es as the consumer's Run does when they are all waiting:
// batch at a time, each failed batch again one event at a time.
func feed(b *testing.B, c *inbox.Consumer, batch int, es []event.Event) {
	ctx := context.Background()
	for len(es) > 0 {
		n := min(batch, len(es))
		if batch == 1 || c.ApplyBatch(ctx, es[:n]) != nil {
			for _, e := range es[:n] {
				if err := c.Apply(ctx, e); err != nil {
					b.Fatalf("apply %s: %v", e.Type, err)
				}
			}
		}
		es = es[n:]
	}
}

// visit is a sandbox customer's verification events: one address
// assigned, checked in, verified, then the outcome.
func visit(b *testing.B, org, env, cus string) []event.Event {
	adr := ids.New("adr")
	var out []event.Event
	prev := "PENDING"
	for i, st := range []string{"ASSIGNED", "IN_PROGRESS", "VERIFIED"} {
		out = append(out, newEvent(b, "verification.address.updated", org, env, map[string]any{"customerId": cus, "addressId": adr,
			"status": st, "previousStatus": prev, "sequence": i + 2, "occurredAt": time.Now().UTC(), "agentId": "agt_sandbox",
			"verificationData": map[string]any{"flags": []string{}}}))
		prev = st
	}
	return append(out, newEvent(b, "verification.completed", org, env, map[string]any{"customerId": cus, "customerName": "Ngozi Okafor",
		"overallStatus": "VERIFIED", "addresses": []any{map[string]any{"id": adr, "streetName": "Adeola Odeku Street",
			"city": "Victoria Island", "state": "Lagos", "country": "Nigeria", "status": "VERIFIED"}}}))
}

func newEvent(b *testing.B, typ, org, env string, data any) event.Event {
	e, err := event.New(typ, org, env, data)
	if err != nil {
		b.Fatal(err)
	}
	return e
}

// hog keeps n goroutines busy until the returned stop is called.
func hog(n int) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 4096)
			for {
				select {
				case <-done:
					return
				default:
					sum := sha256.Sum256(buf)
					buf[0] = sum[0]
				}
			}
		}()
	}
	return func() { close(done); wg.Wait() }
}

// probe measures, in the conditions of the run, a bare round trip
// (SELECT 1) and an empty inbox transaction (BEGIN, the processed_events
// insert, COMMIT), medians of 200 each.
func probe(b *testing.B, pool *pgxpool.Pool) (rtt, empty time.Duration) {
	ctx := context.Background()
	median := func(f func() error) time.Duration {
		ds := make([]time.Duration, 200)
		for i := range ds {
			start := time.Now()
			if err := f(); err != nil {
				b.Fatal(err)
			}
			ds[i] = time.Since(start)
		}
		slices.Sort(ds)
		return ds[len(ds)/2].Round(time.Microsecond)
	}
	rtt = median(func() error { _, err := pool.Exec(ctx, `SELECT 1`); return err })
	empty = median(func() error {
		tx, err := pool.Begin(ctx)
		if err != nil {
			return err
		}
		defer func() { _ = tx.Rollback(ctx) }()
		if _, err := tx.Exec(ctx, `INSERT INTO processed_events (consumer, event_id) VALUES ('probe', $1)`, fmt.Sprint(time.Now().UnixNano())); err != nil {
			return err
		}
		return tx.Commit(ctx)
	})
	return rtt, empty
}
