package postgres_test

import (
	"context"
	"encoding/base64"
	"flag"
	"slices"
	"testing"
	"time"

	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/pkg/keyring"
	"github.com/kycfield/kyc/pkg/outbox"
	"github.com/kycfield/kyc/pkg/pgtest"
	"github.com/kycfield/kyc/services/webhook/internal/events"
	"github.com/kycfield/kyc/services/webhook/internal/postgres"
	"github.com/kycfield/kyc/services/webhook/internal/webhook"
	"github.com/kycfield/kyc/services/webhook/migrations"
)

var benchRows = flag.Int("events-rows", 1_000_000, "events stored for the benchmarked tenant (another tenant gets a tenth as many)")

// BenchmarkEventsList is GET /events' query at -events-rows stored events
// of one organization and environment (spread over 29 days, three types,
// 100,000 customers, bodies of about 700 bytes), beside a tenth as many
// of another tenant: the first page, pages after a cursor deep in the
// list (random positions in its older half), and the type and customer
// filters. Each reports p50 and p99 over every query of the run.
//
//	go test -run x -bench EventsList -benchtime 500x ./internal/postgres/
func BenchmarkEventsList(b *testing.B) {
	pool, _ := pgtest.NewDB(b, migrations.Set(), inbox.Migration(), outbox.Migration())
	ctx := context.Background()
	start := time.Now()
	n := *benchRows
	if _, err := pool.Exec(ctx, `INSERT INTO messages (id, org_id, env, event_type, body, created_at, customer_id)
		SELECT md5(i::text)::uuid::text, CASE WHEN i <= $1 THEN 'org_bench' ELSE 'org_other' END,
			CASE WHEN i <= $1 THEN 'live' ELSE 'test' END, t,
			convert_to('{"id":"' || md5(i::text)::uuid || '","type":"' || t || '","createdAt":"' || at || '","environment":"live","data":{"customerId":"' ||
				c || '","addressId":"adr_' || i || '","status":"VERIFIED","sequence":3,"verificationData":{"agentNotes":"' || repeat('n', 480) || '"}}}', 'UTF8'),
			at, c
		FROM (SELECT i, now() - (random() * interval '29 days') AS at, 'cus_' || lpad((i % 100000)::text, 32, '0') AS c,
			(ARRAY['verification.address.updated', 'verification.address.updated', 'verification.address.updated',
				'verification.completed', 'verification.rejected'])[1 + i % 5] AS t
		      FROM generate_series(1, $1 + $1 / 10) i) s`, n); err != nil {
		b.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `VACUUM ANALYZE messages`); err != nil {
		b.Fatal(err)
	}
	b.Logf("seeded %d events in %s", n+n/10, time.Since(start).Round(time.Second))
	var deep []webhook.EventCursor
	rows, _ := pool.Query(ctx, `SELECT created_at, id FROM messages WHERE org_id = 'org_bench'
		AND created_at < now() - interval '14 days' ORDER BY random() LIMIT 500`)
	for rows.Next() {
		var c webhook.EventCursor
		_ = rows.Scan(&c.CreatedAt, &c.ID)
		deep = append(deep, c)
	}
	if rows.Err() != nil || len(deep) == 0 {
		b.Fatalf("cursors: %v", rows.Err())
	}
	keys, _ := keyring.Parse("b1:"+base64.StdEncoding.EncodeToString(make([]byte, 32)), "b1")
	store := postgres.New(pool, keys, "webhook-events", events.Disabled)
	who := webhook.Caller{OrgID: "org_bench", Env: "live"}
	since := time.Now().Add(-webhook.EventWindow)
	run := func(name string, q func(i int) webhook.EventQuery) {
		b.Run(name, func(b *testing.B) {
			var took []time.Duration
			for i := 0; b.Loop(); i++ {
				t0 := time.Now()
				evs, err := store.Events(ctx, who, q(i), since)
				took = append(took, time.Since(t0))
				if err != nil || len(evs) == 0 {
					b.Fatalf("%d events: %v", len(evs), err)
				}
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(took[len(took)*99/100].Microseconds())/1000, "p99-ms")
		})
	}
	const page = webhook.DefaultEventLimit + 1 // the service asks for one more
	customer := func(i int) string { return "cus_" + pad(1+i%(min(n, 100000)-1)) }
	run("FirstPage", func(int) webhook.EventQuery { return webhook.EventQuery{Limit: page} })
	run("FirstPage100", func(int) webhook.EventQuery { return webhook.EventQuery{Limit: webhook.MaxEventLimit + 1} })
	run("DeepCursor", func(i int) webhook.EventQuery { return webhook.EventQuery{Limit: page, After: &deep[i%len(deep)]} })
	run("TypeDeepCursor", func(i int) webhook.EventQuery {
		return webhook.EventQuery{Limit: page, Type: "verification.completed", After: &deep[i%len(deep)]}
	})
	run("Customer", func(i int) webhook.EventQuery { return webhook.EventQuery{Limit: page, CustomerID: customer(i * 7919)} })
}

func pad(n int) string {
	s := []byte("00000000000000000000000000000000")
	for i := len(s) - 1; n > 0; i-- {
		s[i] = byte('0' + n%10)
		n /= 10
	}
	return string(s)
}
