package postgres_test

import (
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/pkg/outbox"
	"github.com/kycfield/kyc/pkg/pgdb"
	"github.com/kycfield/kyc/pkg/pgtest"
	"github.com/kycfield/kyc/services/reporting/internal/postgres"
	"github.com/kycfield/kyc/services/reporting/internal/report"
	"github.com/kycfield/kyc/services/reporting/migrations"
)

const lease = 2 * time.Minute

func newStore(t *testing.T) (*postgres.Store, *pgxpool.Pool) {
	t.Helper()
	pool, _ := pgtest.NewDB(t, migrations.Set(), inbox.Migration(), outbox.Migration())
	return storeOn(pool), pool
}

// storeOn is a store over pool that publishes nothing of its own.
func storeOn(pool *pgxpool.Pool) *postgres.Store {
	return postgres.New(pool, "reporting-events", func(report.Report) (event.Event, error) { return event.Event{}, nil })
}

// queue inserts a render of customer, queued at queued and due at due.
func queue(t *testing.T, pool *pgxpool.Pool, id, customer string, queued, due time.Time) {
	t.Helper()
	if _, err := pool.Exec(t.Context(), `INSERT INTO renders (id, org_id, env, customer_id, queued_at, not_before)
		VALUES ($1, 'org_1', 'test', $2, $3, $4)`, id, customer, queued, due); err != nil {
		t.Fatal(err)
	}
}

func claim(t *testing.T, s *postgres.Store) report.Claim {
	t.Helper()
	c, err := s.ClaimRender(t.Context(), lease)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A claim that finds nothing due says when the next render falls due, so
// an idle worker sleeps until then without another query: nothing queued
// is zero; otherwise the earliest retry (or a lease a dead worker left).
func TestAClaimThatFindsNothingSaysWhenTheNextFallsDue(t *testing.T) {
	s, pool := newStore(t)
	if c := claim(t, s); c.Claimed || !c.Next.IsZero() {
		t.Fatalf("nothing queued: %+v; want nothing claimed and no next time", c)
	}
	now := time.Now().Truncate(time.Microsecond)
	soon := now.Add(time.Hour)
	queue(t, pool, "evt_later", "cus_1", now, soon.Add(time.Hour))
	queue(t, pool, "evt_retry", "cus_2", now, soon)
	if c := claim(t, s); c.Claimed || !c.Next.Equal(soon) {
		t.Fatalf("claim = %+v; want nothing claimed, next the retry's %v", c, soon)
	}
}

// A customer's renders are taken one at a time, oldest first: while the
// older is leased, the younger (though due) is neither claimed nor
// reported due, so no worker wakes for it before the lease ends; once the
// older is finished, the statement that removed it says the younger is due.
func TestAYoungerRenderWaitsForItsCustomersOlderOne(t *testing.T) {
	s, pool := newStore(t)
	now := time.Now().Add(-time.Minute)
	queue(t, pool, "evt_first", "cus_1", now, now)
	queue(t, pool, "evt_second", "cus_1", now.Add(time.Second), now)
	first := claim(t, s)
	if !first.Claimed || first.Render.ID != "evt_first" || first.Render.Attempts != 0 {
		t.Fatalf("first claim = %+v; want evt_first", first)
	}
	c := claim(t, s)
	if c.Claimed || !c.Next.After(time.Now().Add(lease/2)) {
		t.Fatalf("while the older is leased: %+v; want nothing claimed, next at the lease's end", c)
	}
	var next time.Time
	err := s.Atomic(t.Context(), func(tx report.Tx) (err error) {
		next, err = tx.FinishRender(t.Context(), "evt_first")
		return err
	})
	if err != nil || next.IsZero() || next.After(time.Now()) {
		t.Fatalf("finishing the older: next %v, %v; want the younger due now", next, err)
	}
	if c := claim(t, s); !c.Claimed || c.Render.ID != "evt_second" {
		t.Fatalf("after the older: %+v; want evt_second", c)
	}
	err = s.Atomic(t.Context(), func(tx report.Tx) (err error) {
		next, err = tx.FinishRender(t.Context(), "evt_second")
		return err
	})
	if err != nil || !next.IsZero() {
		t.Fatalf("finishing the last: next %v, %v; want none queued", next, err)
	}
}

// A render claimed by a worker that dies is not lost: when its lease
// ends it is claimed again, its attempts counted.
func TestARenderLeftByADeadWorkerIsClaimedAgain(t *testing.T) {
	s, pool := newStore(t)
	now := time.Now().Add(-time.Minute)
	queue(t, pool, "evt_1", "cus_1", now, now)
	if c := claim(t, s); !c.Claimed {
		t.Fatalf("first claim: %+v", c)
	}
	// The worker dies here; its lease runs out.
	if _, err := pool.Exec(t.Context(), `UPDATE renders SET not_before = now()`); err != nil {
		t.Fatal(err)
	}
	if c := claim(t, s); !c.Claimed || c.Render.ID != "evt_1" || c.Render.Attempts != 1 {
		t.Fatalf("after the lease: %+v; want evt_1 again, one earlier attempt", c)
	}
}

// The claim brings the customer's outcome with the documents added since
// that it does not name, in the order they came; a render whose customer
// has no outcome comes without one.
func TestAClaimBringsTheOutcomeAndLaterDocuments(t *testing.T) {
	s, pool := newStore(t)
	ctx := t.Context()
	now := time.Now().Add(-time.Minute)
	queue(t, pool, "evt_none", "cus_0", now, now)
	if c := claim(t, s); !c.Claimed || c.HasOutcome {
		t.Fatalf("no outcome: %+v", c)
	}
	o := report.Outcome{CustomerID: "cus_1", OverallStatus: report.Verified, Documents: []report.Document{{ID: "doc_a", DocumentType: "ID_CARD"}}}
	err := s.Atomic(ctx, func(tx report.Tx) error {
		if err := tx.SaveOutcome(ctx, "org_1", "test", o); err != nil {
			return err
		}
		for _, id := range []string{"doc_c", "doc_a", "doc_b"} { // doc_a is the outcome's own
			if _, err := tx.AddDocument(ctx, "org_1", "test", "cus_1", report.Document{ID: id}); err != nil {
				return err
			}
		}
		_, err := tx.AddDocument(ctx, "org_2", "test", "cus_1", report.Document{ID: "doc_other_org"})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	// Added one after another, but within one transaction: the order
	// is by time, then id.
	queue(t, pool, "evt_1", "cus_1", now.Add(time.Second), now)
	c := claim(t, s)
	var got []string
	for _, d := range c.Outcome.Documents {
		got = append(got, d.ID)
	}
	if !c.Claimed || !c.HasOutcome || c.Outcome.OverallStatus != report.Verified || len(got) != 3 ||
		got[0] != "doc_a" || got[1] != "doc_b" || got[2] != "doc_c" {
		t.Fatalf("claim = %+v, documents %v; want the outcome with doc_a, doc_b, doc_c", c, got)
	}
}

// A claim takes the head of a long queue without reading the queue, even
// on a connection that first ran it while the queue was empty and
// analysed empty: a plan cached then scanned the queue and joined it with
// itself, so a claim over 3,000 renders read millions of rows, and the
// renders fell further behind the longer the backlog grew.
func TestAClaimReadsTheHeadOfALongQueueNotAllOfIt(t *testing.T) {
	_, url := pgtest.NewDB(t, migrations.Set(), inbox.Migration(), outbox.Migration())
	pool, err := pgdb.Open(t.Context(), url, 1) // one connection: the one whose cache would hold the plan
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	s := storeOn(pool)
	if _, err := pool.Exec(t.Context(), `ANALYZE renders`); err != nil {
		t.Fatal(err)
	}
	for range 10 { // past the five executions after which a cached statement may keep a generic plan
		if c := claim(t, s); c.Claimed {
			t.Fatal("claimed from an empty queue")
		}
	}
	if _, err := pool.Exec(t.Context(), `INSERT INTO renders (id, org_id, env, customer_id, queued_at)
		SELECT 'evt_' || g, 'org_1', 'test', 'cus_' || g, now() - interval '1 hour' + g * interval '1 ms'
		FROM generate_series(1, 3000) g`); err != nil {
		t.Fatal(err)
	}
	before := rowsRead(t, pool)
	c := claim(t, s)
	if !c.Claimed || c.Render.ID != "evt_1" {
		t.Fatalf("claim = %+v; want the oldest, evt_1", c)
	}
	if n := rowsRead(t, pool) - before; n > 100 {
		t.Fatalf("the claim read %d rows of a queue of 3,000 to take its head", n)
	}
}

// rowsRead is how many rows of renders this connection's statements have
// read, flushed first so that the count includes the last statement.
func rowsRead(t *testing.T, pool *pgxpool.Pool) int64 {
	t.Helper()
	if _, err := pool.Exec(t.Context(), `SELECT pg_stat_force_next_flush()`); err != nil {
		t.Fatal(err)
	}
	var n int64
	if err := pool.QueryRow(t.Context(), `SELECT coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0)
		FROM pg_stat_user_tables WHERE relname = 'renders'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
