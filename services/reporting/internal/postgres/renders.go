package postgres

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kycfield/kyc/pkg/pgdb"
	"github.com/kycfield/kyc/pkg/telemetry"
	"github.com/kycfield/kyc/services/reporting/internal/report"
)

// NotifyChannel is where a queued render is announced (NOTIFY, sent at
// commit), so the render worker wakes at once instead of at its next poll.
const NotifyChannel = "reporting_renders"

// ClaimRender implements report.Repository. A customer's renders are taken
// one at a time, oldest first, so its versions number in the order their
// events came.
func (s *Store) ClaimRender(ctx context.Context, lease time.Duration) (report.Render, bool, error) {
	var r report.Render
	err := s.Pool().QueryRow(ctx, `UPDATE renders SET not_before = now() + $1::interval, attempts = attempts + 1
		WHERE id = (SELECT id FROM renders r WHERE not_before <= now()
			AND NOT EXISTS (SELECT 1 FROM renders o WHERE o.customer_id = r.customer_id AND (o.queued_at, o.id) < (r.queued_at, r.id))
			ORDER BY queued_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
		RETURNING id, org_id, env, customer_id, attempts - 1, traceparent`, lease).
		Scan(&r.ID, &r.OrgID, &r.Env, &r.CustomerID, &r.Attempts, &r.Trace)
	if pgdb.IsNoRows(err) {
		return r, false, nil
	}
	return r, err == nil, err
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
	_, err = t.tx.Exec(ctx, `SELECT pg_notify($1, '')`, NotifyChannel)
	return err
}

// FinishRender implements report.Tx.
func (t txn) FinishRender(ctx context.Context, id string) error {
	_, err := t.tx.Exec(ctx, `DELETE FROM renders WHERE id = $1`, id)
	return err
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
	var o report.Outcome
	var b []byte
	err := t.tx.QueryRow(ctx, `SELECT outcome FROM outcomes WHERE customer_id = $1 AND org_id = $2 AND env = $3`,
		customerID, orgID, env).Scan(&b)
	if pgdb.IsNoRows(err) {
		return o, false, nil
	}
	if err == nil {
		err = json.Unmarshal(b, &o)
	}
	if err != nil {
		return o, false, err
	}
	rows, err := t.tx.Query(ctx, `SELECT document FROM documents WHERE customer_id = $1 AND org_id = $2 AND env = $3
		ORDER BY added_at, document_id`, customerID, orgID, env)
	if err != nil {
		return o, false, err
	}
	added, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (d report.Document, err error) {
		if err = row.Scan(&b); err == nil {
			err = json.Unmarshal(b, &d)
		}
		return d, err
	})
	for _, d := range added {
		if !slices.ContainsFunc(o.Documents, func(x report.Document) bool { return x.ID == d.ID }) {
			o.Documents = append(o.Documents, d)
		}
	}
	return o, true, err
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

// NextRenderDue is when the earliest queued render falls due (zero: none
// queued), so that an idle render worker sleeps until then: renders
// queued now are announced on NotifyChannel; only retries wait unannounced.
func NextRenderDue(ctx context.Context, pool *pgxpool.Pool) (time.Time, error) {
	var next *time.Time
	if err := pool.QueryRow(ctx, `SELECT min(not_before) FROM renders`).Scan(&next); err != nil || next == nil {
		return time.Time{}, err
	}
	return *next, nil
}
