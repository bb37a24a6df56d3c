package postgres

import (
	"context"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/pkg/ids"
	"github.com/kycfield/kyc/pkg/telemetry"
	"github.com/kycfield/kyc/services/webhook/internal/webhook"
)

// Batch gathers the reads, or the writes, of several events, so that
// Tx.Send sends them in one round trip: the consumer turns a whole batch
// of events into deliveries with one round trip of reads and one of
// writes, where it took about three per event. Statements run in the
// order they were queued, each seeing the effect of those before it, as
// if each had been sent alone; what a read finds is in its destination
// once Send has returned.
type Batch struct {
	b      pgx.Batch
	notify bool // a delivery was queued: wake the dispatcher once
}

// SaveVersion queues recording v, an address's newest transition (an
// older one than that stored changes nothing).
func (b *Batch) SaveVersion(orgID, env string, v AddressVersionOf) {
	b.b.Queue(`INSERT INTO address_versions (address_id, org_id, env, sequence, occurred_at) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (address_id) DO UPDATE SET sequence = excluded.sequence, occurred_at = excluded.occurred_at
		WHERE address_versions.sequence < excluded.sequence`, v.AddressID, orgID, env, v.Sequence, v.OccurredAt)
}

// Subscribers queues reading into *into the enabled endpoints of the
// tenant that want typ.
func (b *Batch) Subscribers(orgID, env, typ string, into *[]string) {
	b.b.Queue(`SELECT id FROM endpoints WHERE org_id = $1 AND env = $2 AND deleted_at IS NULL AND enabled
		AND ($3 = ANY(events) OR '*' = ANY(events)) ORDER BY id`, orgID, env, typ).Query(func(rows pgx.Rows) error {
		subs, err := pgx.CollectRows(rows, pgx.RowTo[string])
		*into = subs
		return err
	})
}

// Versions queues reading into into the newest known version of each of
// addressIDs.
func (b *Batch) Versions(orgID, env string, addressIDs []string, into map[string]AddressVersion) {
	b.b.Queue(`SELECT address_id, sequence, occurred_at FROM address_versions
		WHERE org_id = $1 AND env = $2 AND address_id = ANY($3)`, orgID, env, addressIDs).Query(func(rows pgx.Rows) error {
		var id string
		var v AddressVersion
		_, err := pgx.ForEachRow(rows, []any{&id, &v.Sequence, &v.OccurredAt}, func() error {
			into[id] = v
			return nil
		})
		return err
	})
}

// LastMessage queues taking the customer's stage lock (held to the end of
// the transaction) and reading into *into when its latest message was
// stored (nil: none). A stage event is stored at StageAfter that, so
// every message of one customer gets its own createdAt, increasing in
// the order they were stored, which is what the events API sorts by and
// the dispatcher keeps per customer. The lock serialises the two
// consumers that store a customer's stage events (verification and
// reporting), so two cannot take the same time; each consumer's batch
// takes its customers' locks in the order of their ids, so two batches
// never wait on each other in a cycle.
func (b *Batch) LastMessage(orgID, env, customerID string, into **time.Time) {
	b.b.Queue(`SELECT pg_advisory_xact_lock(hashtextextended('webhook-stage/' || $1, 0))`, customerID)
	b.b.Queue(`SELECT max(created_at) FROM messages WHERE org_id = $1 AND env = $2 AND customer_id = $3`,
		orgID, env, customerID).QueryRow(func(row pgx.Row) error { return row.Scan(into) })
}

// Enqueue queues storing m (its trace taken from ctx) and a delivery to
// each endpoint, due now (none: m is only stored, for the events API);
// see Tx.Enqueue.
func (b *Batch) Enqueue(ctx context.Context, m webhook.Message, endpointIDs []string) []webhook.Delivery {
	now := time.Now().UTC()
	out := make([]webhook.Delivery, 0, len(endpointIDs))
	var customerID *string
	if m.CustomerID != "" {
		customerID = &m.CustomerID
	}
	b.b.Queue(`INSERT INTO messages (id, org_id, env, event_type, body, created_at, traceparent, customer_id)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (id) DO NOTHING`,
		m.ID, m.OrgID, m.Env, m.Type, m.Body, m.CreatedAt, telemetry.Traceparent(ctx), customerID)
	staged := m.CustomerID != "" && slices.Contains(webhook.Staged, m.Type)
	for _, eid := range endpointIDs {
		d := webhook.Delivery{ID: ids.New("dlv"), EndpointID: eid, OrgID: m.OrgID, Env: m.Env, MessageID: m.ID, EventType: m.Type,
			Status: webhook.StatusPending, NextAttemptAt: &now, CreatedAt: now, UpdatedAt: now}
		if staged {
			b.b.Queue(`INSERT INTO deliveries (id, endpoint_id, org_id, env, message_id, event_type, status, next_attempt_at, created_at, updated_at)
				VALUES ($1, $2, $3, $4, $5, $6, $7, CASE WHEN EXISTS (`+unfinishedStage+`) THEN NULL ELSE $8::timestamptz END, $8, $8)
				ON CONFLICT (endpoint_id, message_id) DO NOTHING`,
				d.ID, eid, m.OrgID, m.Env, m.ID, m.Type, d.Status, now, m.CustomerID, webhook.Staged)
		} else {
			b.b.Queue(`INSERT INTO deliveries (id, endpoint_id, org_id, env, message_id, event_type, status, next_attempt_at, created_at, updated_at)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8, $8) ON CONFLICT (endpoint_id, message_id) DO NOTHING`,
				d.ID, eid, m.OrgID, m.Env, m.ID, m.Type, d.Status, now)
		}
		out = append(out, d)
	}
	b.notify = b.notify || len(endpointIDs) > 0
	return out
}

// HasOutcome queues reading into *into whether the customer's
// verification.completed or verification.rejected is stored.
func (b *Batch) HasOutcome(orgID, env, customerID string, into *bool) {
	b.b.Queue(hasOutcome, orgID, env, customerID).QueryRow(func(row pgx.Row) error { return row.Scan(into) })
}

// hasOutcome reads the customer's few messages and looks at their types.
// It must not filter on event_type in the WHERE clause: with the types
// there, the plan a pooled connection caches for the statement (generic,
// made while the table is small or before it is analysed) walked
// events_by_type over the organization's every outcome for each report,
// and in a 20,000 burst the reporting consumer fell to 6 reports a
// second (BENCHMARKS.md §18z). Without them, events_by_customer is the
// only index that fits.
const hasOutcome = `SELECT coalesce(bool_or(event_type IN ('verification.completed', 'verification.rejected')), false)
	FROM messages WHERE org_id = $1 AND env = $2 AND customer_id = $3`

// WaitingReport is a report.generated parked until its customer's
// outcome is stored: the event's id, tenant, time and data.
type WaitingReport struct {
	EventID, OrgID, Env, CustomerID string
	Time, GeneratedAt               time.Time
	Data                            []byte
}

// Park queues parking r (a replay parks nothing twice).
func (b *Batch) Park(r WaitingReport) {
	b.b.Queue(`INSERT INTO reports_waiting (event_id, org_id, env, customer_id, event_time, generated_at, data)
		VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`, r.EventID, r.OrgID, r.Env, r.CustomerID, r.Time, r.GeneratedAt, r.Data)
}

// Release queues taking out the customer's parked reports into *into,
// oldest first. Under the customer's stage lock it races no Park.
func (b *Batch) Release(orgID, env, customerID string, into *[]WaitingReport) {
	b.release(`org_id = $1 AND env = $2 AND customer_id = $3`, into, orgID, env, customerID)
}

// ReleaseIDs queues taking out the parked reports of eventIDs that are
// still parked into *into, oldest first.
func (b *Batch) ReleaseIDs(eventIDs []string, into *[]WaitingReport) {
	b.release(`event_id = ANY($1)`, into, eventIDs)
}

func (b *Batch) release(where string, into *[]WaitingReport, args ...any) {
	b.b.Queue(`WITH r AS (DELETE FROM reports_waiting WHERE `+where+`
		RETURNING event_id, org_id, env, customer_id, event_time, generated_at, data)
		SELECT * FROM r ORDER BY event_time, event_id`, args...).Query(func(rows pgx.Rows) error {
		out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (WaitingReport, error) {
			var w WaitingReport
			err := r.Scan(&w.EventID, &w.OrgID, &w.Env, &w.CustomerID, &w.Time, &w.GeneratedAt, &w.Data)
			return w, err
		})
		*into = out
		return err
	})
}

// Overdue is up to limit parked reports generated before before (their
// id, tenant and customer): those whose outcome has not come in the time
// it takes, to be released without it. Read without a lock: which of
// them are still parked is for ReleaseIDs to say, under the customers'
// locks.
func (t Tx) Overdue(ctx context.Context, before time.Time, limit int) ([]WaitingReport, error) {
	rows, err := t.tx.Query(ctx, `SELECT event_id, org_id, env, customer_id FROM reports_waiting WHERE generated_at < $1
		ORDER BY generated_at LIMIT $2`, before, limit)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (WaitingReport, error) {
		var w WaitingReport
		err := r.Scan(&w.EventID, &w.OrgID, &w.Env, &w.CustomerID)
		return w, err
	})
}

// Send sends what b gathered in one round trip, ending with one NOTIFY
// of the dispatcher if any delivery was queued.
func (t Tx) Send(ctx context.Context, b *Batch) error {
	if b.notify {
		b.b.Queue(`SELECT pg_notify($1, '')`, NotifyChannel)
		b.notify = false
	}
	if b.b.Len() == 0 {
		return nil
	}
	return t.tx.SendBatch(ctx, &b.b).Close()
}

// StageAfter is when a stage event that happened at at is recorded, the
// customer's latest message having been stored at last (nil: none): at
// to the millisecond (the body's precision), or a millisecond after last
// if at is not later.
func StageAfter(at time.Time, last *time.Time) time.Time {
	at = at.UTC().Truncate(time.Millisecond)
	if last != nil && !at.After(*last) {
		at = last.UTC().Truncate(time.Millisecond).Add(time.Millisecond)
	}
	return at
}
