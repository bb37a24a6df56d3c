package postgres

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/pkg/pgdb"
	"github.com/kycfield/kyc/pkg/telemetry"
	"github.com/kycfield/kyc/services/reporting/internal/report"
)

// NotifyChannel is where a queued render is announced (NOTIFY, sent at
// commit, with the render's id), so the render worker wakes at once
// instead of at its next poll.
const NotifyChannel = "reporting_renders"

// head is true of a render r that a claim may take: no older render of
// its customer is queued, so a customer's versions number in the order
// their events came. $2 names a render to leave out (one being removed
// in the same statement; ” for none).
const head = `NOT EXISTS (SELECT 1 FROM renders o WHERE o.customer_id = r.customer_id AND o.id <> $2
	AND (o.queued_at, o.id) < (r.queued_at, r.id))`

// nextDue is when the earliest render a claim could take falls due,
// leaving $2 out (NULL: none queued). A render due now is found walking
// the queue in order, which stops at the first (a backlog is not read
// through); only when none is due are the heads' times compared.
const nextDue = `coalesce(
	(SELECT r.not_before FROM renders r WHERE r.not_before <= now() AND r.id <> $2 AND ` + head + `
		ORDER BY r.queued_at, r.id LIMIT 1),
	(SELECT min(r.not_before) FROM renders r WHERE r.id <> $2 AND ` + head + `))`

// claimSQL leases the oldest due head and returns it with its customer's
// outcome and documents; when it leases none, one row with only the next
// due time. One statement instead of three round trips (a claim, a read
// of the outcome, and, when the queue ran dry, a query for the next due
// time). The next due time is read in the statement's snapshot, from
// before the lease: it is only returned when nothing was leased.
const claimSQL = `WITH claimed AS (
	UPDATE renders SET not_before = now() + $1::interval, attempts = attempts + 1
	WHERE id = (SELECT r.id FROM renders r WHERE r.not_before <= now() AND ` + head + `
		ORDER BY r.queued_at, r.id LIMIT 1 FOR UPDATE SKIP LOCKED)
	RETURNING id, org_id, env, customer_id, attempts - 1 AS attempts, traceparent)
SELECT c.id, c.org_id, c.env, c.customer_id, c.attempts, c.traceparent, o.outcome,
	(SELECT json_agg(d.document ORDER BY d.added_at, d.document_id) FROM documents d
		WHERE d.customer_id = c.customer_id AND d.org_id = c.org_id AND d.env = c.env),
	NULL::timestamptz
FROM claimed c LEFT JOIN outcomes o ON o.customer_id = c.customer_id AND o.org_id = c.org_id AND o.env = c.env
UNION ALL
SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, ` + nextDue + ` WHERE NOT EXISTS (SELECT 1 FROM claimed)`

// planNow runs a statement over the render queue planned for the queue as
// it is (an unnamed statement, planned at each execution) rather than as a
// plan the connection cached. The queue swings between empty and a
// backlog of thousands: a generic plan cached while it was empty, or
// analysed empty, scans it and joins it with itself (head), so each claim
// read every queued render against every other, quadratic in the backlog,
// just when the backlog needs the renders fastest (BENCHMARKS §18aa).
const planNow = pgx.QueryExecModeCacheDescribe

// ClaimRender implements report.Repository.
func (s *Store) ClaimRender(ctx context.Context, lease time.Duration) (report.Claim, error) {
	var c report.Claim
	var id, org, env, customer, trace *string
	var attempts *int
	var outcome, docs []byte
	var next *time.Time
	err := s.Pool().QueryRow(ctx, claimSQL, planNow, lease, "").
		Scan(&id, &org, &env, &customer, &attempts, &trace, &outcome, &docs, &next)
	if err != nil || id == nil {
		if next != nil {
			c.Next = *next
		}
		return c, err
	}
	c.Claimed = true
	c.Render = report.Render{ID: *id, OrgID: *org, Env: *env, CustomerID: *customer, Attempts: *attempts, Trace: *trace}
	if outcome == nil {
		return c, nil
	}
	c.HasOutcome = true
	c.Outcome, err = decodeOutcome(outcome, docs)
	return c, err
}

// decodeOutcome is an outcome (jsonb) with the documents added since (a
// JSON array, or nil) that it does not name, in the order they came.
func decodeOutcome(outcome, docs []byte) (report.Outcome, error) {
	var o report.Outcome
	if err := json.Unmarshal(outcome, &o); err != nil {
		return o, err
	}
	var added []report.Document
	if docs != nil {
		if err := json.Unmarshal(docs, &added); err != nil {
			return o, err
		}
	}
	for _, d := range added {
		if !slices.ContainsFunc(o.Documents, func(x report.Document) bool { return x.ID == d.ID }) {
			o.Documents = append(o.Documents, d)
		}
	}
	return o, nil
}

// RetryRender implements report.Repository.
func (s *Store) RetryRender(ctx context.Context, id string, wait time.Duration) error {
	_, err := s.Pool().Exec(ctx, `UPDATE renders SET not_before = now() + $2::interval WHERE id = $1`, id, wait)
	return err
}

// QueueRender implements report.Tx, with the trace the event came in.
func (t txn) QueueRender(ctx context.Context, r report.Render) error {
	_, err := t.tx.Exec(ctx, `INSERT INTO renders (id, org_id, env, customer_id, traceparent) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (id) DO NOTHING`, r.ID, r.OrgID, r.Env, r.CustomerID, telemetry.Traceparent(ctx))
	if err != nil {
		return err
	}
	// The payload names the render, so that a worker that took it before
	// reading this notification knows it has nothing new to do.
	_, err = t.tx.Exec(ctx, `SELECT pg_notify($1, $2)`, NotifyChannel, r.ID)
	return err
}

// FinishRender implements report.Tx: the next due time is read in the
// statement that removes the render (its snapshot still holds the row, so
// the row is left out by id).
func (t txn) FinishRender(ctx context.Context, id string) (time.Time, error) {
	var next *time.Time
	err := t.tx.QueryRow(ctx, `WITH gone AS (DELETE FROM renders WHERE id = $1) SELECT `+nextDue, planNow, id, id).Scan(&next)
	if err != nil || next == nil {
		return time.Time{}, err
	}
	return *next, nil
}

// SaveOutcome implements report.Tx.
func (t txn) SaveOutcome(ctx context.Context, orgID, env string, o report.Outcome) error {
	b, err := json.Marshal(o)
	if err != nil {
		return err
	}
	_, err = t.tx.Exec(ctx, `INSERT INTO outcomes (customer_id, org_id, env, outcome, updated_at) VALUES ($1, $2, $3, $4, now())
		ON CONFLICT (customer_id) DO UPDATE SET outcome = excluded.outcome, updated_at = excluded.updated_at
		WHERE outcomes.org_id = excluded.org_id AND outcomes.env = excluded.env`, o.CustomerID, orgID, env, b)
	return err
}

// Outcome implements report.Tx: the outcome's documents, then those added
// since that it does not name, in the order they came.
func (t txn) Outcome(ctx context.Context, orgID, env, customerID string) (report.Outcome, bool, error) {
	var outcome, docs []byte
	err := t.tx.QueryRow(ctx, `SELECT o.outcome, (SELECT json_agg(d.document ORDER BY d.added_at, d.document_id) FROM documents d
		WHERE d.customer_id = o.customer_id AND d.org_id = o.org_id AND d.env = o.env)
		FROM outcomes o WHERE o.customer_id = $1 AND o.org_id = $2 AND o.env = $3`, customerID, orgID, env).Scan(&outcome, &docs)
	if pgdb.IsNoRows(err) {
		return report.Outcome{}, false, nil
	}
	if err != nil {
		return report.Outcome{}, false, err
	}
	o, err := decodeOutcome(outcome, docs)
	return o, err == nil, err
}

// AddDocument implements report.Tx.
func (t txn) AddDocument(ctx context.Context, orgID, env, customerID string, d report.Document) (bool, error) {
	b, err := json.Marshal(d)
	if err != nil {
		return false, err
	}
	tag, err := t.tx.Exec(ctx, `INSERT INTO documents (customer_id, document_id, org_id, env, document, added_at)
		VALUES ($1, $2, $3, $4, $5, now()) ON CONFLICT DO NOTHING`, customerID, d.ID, orgID, env, b)
	return tag.RowsAffected() == 1, err
}
