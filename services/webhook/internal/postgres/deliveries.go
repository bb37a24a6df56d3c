package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/pkg/pgdb"
	"github.com/kycfield/kyc/services/webhook/internal/webhook"
)

// Tx is the consumer's transaction as the webhook context uses it.
type Tx struct{ tx pgx.Tx }

// Lookup reads, in one round trip, what turning an event of type typ into
// deliveries needs: the enabled endpoints of the tenant that want typ,
// and the versions of addressIDs. It first records save, when given (an
// address's newest transition), so the read sees it.
func (t Tx) Lookup(ctx context.Context, orgID, env, typ string, save *AddressVersionOf, addressIDs []string) ([]string, map[string]AddressVersion, error) {
	var b Batch
	if save != nil {
		b.SaveVersion(orgID, env, *save)
	}
	var subs []string
	b.Subscribers(orgID, env, typ, &subs)
	versions := map[string]AddressVersion{}
	if len(addressIDs) > 0 {
		b.Versions(orgID, env, addressIDs, versions)
	}
	if err := t.Send(ctx, &b); err != nil {
		return nil, nil, err
	}
	return subs, versions, nil
}

// Enqueue records m and a delivery to each endpoint, due now (none:
// m is only stored, for the events API).
func (t Tx) Enqueue(ctx context.Context, m webhook.Message, endpointIDs []string) ([]webhook.Delivery, error) {
	return enqueue(ctx, t.tx, m, endpointIDs)
}

// AddressVersionOf is an address's transition to record.
type AddressVersionOf struct {
	AddressID  string
	Sequence   int64
	OccurredAt time.Time
}

// AddressVersion is an address's newest known sequence and time.
type AddressVersion struct {
	Sequence   int64
	OccurredAt time.Time
}

func enqueue(ctx context.Context, tx pgx.Tx, m webhook.Message, endpointIDs []string) ([]webhook.Delivery, error) {
	var b Batch
	out := b.Enqueue(ctx, m, endpointIDs)
	return out, Tx{tx}.Send(ctx, &b)
}

// unfinishedStage finds another stage event of customer $9 whose
// delivery to endpoint $2 has not ended. A stage delivery enqueued while
// one exists is parked (no next_attempt_at): it waits off the due index,
// and Complete makes it due when the one before it ends. The consumer
// holds the customer's stage lock (Batch.LastMessage), and Complete takes it
// too, so a delivery ending while a later one is enqueued either is seen
// as ended here or sees the parked one.
const unfinishedStage = `SELECT 1 FROM messages pm
	JOIN deliveries p ON p.endpoint_id = $2 AND p.message_id = pm.id AND p.status IN ('pending', 'retrying')
	WHERE pm.org_id = $3 AND pm.env = $4 AND pm.customer_id = $9 AND pm.event_type = ANY($10) AND pm.id <> $5`

// Enqueue implements webhook.Repository.
func (s *Store) Enqueue(ctx context.Context, m webhook.Message, endpointIDs []string, a webhook.Audit) ([]webhook.Delivery, error) {
	var out []webhook.Delivery
	err := s.Transact(ctx, func(tx pgx.Tx) (err error) {
		if out, err = enqueue(ctx, tx, m, endpointIDs); err != nil {
			return err
		}
		return s.audit(ctx, tx, a, nil)
	})
	return out, err
}

const deliveryCols = `id, endpoint_id, org_id, env, message_id, event_type, status, attempts, scheduled, next_attempt_at, created_at, updated_at`

func scanDelivery(row pgx.Row) (webhook.Delivery, error) {
	var d webhook.Delivery
	err := row.Scan(&d.ID, &d.EndpointID, &d.OrgID, &d.Env, &d.MessageID, &d.EventType, &d.Status, &d.Attempts, &d.Scheduled,
		&d.NextAttemptAt, &d.CreatedAt, &d.UpdatedAt)
	return d, err
}

// Deliveries implements webhook.Repository: newest first, each with its
// attempts.
func (s *Store) Deliveries(ctx context.Context, who webhook.Caller, endpointID string, f webhook.DeliveryFilter) ([]webhook.Delivery, error) {
	rows, err := s.Pool().Query(ctx, `SELECT `+deliveryCols+` FROM deliveries WHERE org_id = $1 AND env = $2 AND endpoint_id = $3
		AND ($4 = '' OR status = $4) AND ($5 = '' OR event_type = $5) AND ($6 = '' OR id < $6)
		ORDER BY id DESC LIMIT $7`, who.OrgID, who.Env, endpointID, f.Status, f.EventType, f.Before, f.Limit)
	if err != nil {
		return nil, pgdb.Translate(err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (webhook.Delivery, error) { return scanDelivery(r) })
	if err != nil {
		return nil, pgdb.Translate(err)
	}
	return out, pgdb.Translate(s.attachAttempts(ctx, out))
}

func (s *Store) attachAttempts(ctx context.Context, ds []webhook.Delivery) error {
	if len(ds) == 0 {
		return nil
	}
	idx := make(map[string]int, len(ds))
	dids := make([]string, len(ds))
	for i, d := range ds {
		idx[d.ID], dids[i] = i, d.ID
		ds[i].Log = []webhook.Attempt{}
	}
	rows, err := s.Pool().Query(ctx, `SELECT delivery_id, number, trigger, at, status_code, latency_ms, response, error, succeeded
		FROM attempts WHERE delivery_id = ANY($1) ORDER BY delivery_id, number`, dids)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var a webhook.Attempt
		if err := rows.Scan(&id, &a.Number, &a.Trigger, &a.At, &a.StatusCode, &a.LatencyMS, &a.Response, &a.Error, &a.Succeeded); err != nil {
			return err
		}
		ds[idx[id]].Log = append(ds[idx[id]].Log, a)
	}
	return rows.Err()
}

// Retry implements webhook.Repository.
func (s *Store) Retry(ctx context.Context, who webhook.Caller, endpointID, deliveryID string, a webhook.Audit) (webhook.Delivery, error) {
	var d webhook.Delivery
	err := s.Transact(ctx, func(tx pgx.Tx) (err error) {
		d, err = scanDelivery(tx.QueryRow(ctx, `UPDATE deliveries SET manual = true, next_attempt_at = now(), updated_at = now()
			WHERE id = $1 AND endpoint_id = $2 AND org_id = $3 AND env = $4 RETURNING `+deliveryCols,
			deliveryID, endpointID, who.OrgID, who.Env))
		if pgdb.IsNoRows(err) {
			return webhook.ErrDeliveryNotFound
		}
		if err != nil {
			return err
		}
		if _, err = tx.Exec(ctx, `SELECT pg_notify($1, '')`, NotifyChannel); err != nil {
			return err
		}
		return s.audit(ctx, tx, a, nil)
	})
	return d, err
}

// Recover implements webhook.Repository.
func (s *Store) Recover(ctx context.Context, who webhook.Caller, endpointID string, since time.Time, a webhook.Audit) (int, error) {
	var n int
	err := s.Transact(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE deliveries SET manual = true, next_attempt_at = now(), updated_at = now()
			WHERE endpoint_id = $1 AND org_id = $2 AND env = $3 AND created_at >= $4 AND status IN ('retrying', 'exhausted')`,
			endpointID, who.OrgID, who.Env, since)
		if err != nil {
			return err
		}
		n = int(tag.RowsAffected())
		if _, err = tx.Exec(ctx, `SELECT pg_notify($1, '')`, NotifyChannel); err != nil {
			return err
		}
		return s.audit(ctx, tx, a, map[string]any{"recovered": n})
	})
	return n, err
}
