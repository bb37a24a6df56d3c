package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/services/webhook/internal/webhook"
)

// pruneBatch bounds each delete of the message sweep, so a sweep over
// millions of expired events never holds one long transaction.
const pruneBatch = 10000

// Prune deletes the log of deliveries that ended (succeeded or exhausted,
// nothing due) and were created before before, with their attempts, and
// then the messages no delivery refers to that are older than both before
// and the events API's window (webhook.EventWindow): the API lists
// messages whether or not an endpoint received them. Deliveries still
// retrying are kept whatever their age, so nothing that may yet be sent
// is lost.
func (s *Store) Prune(ctx context.Context, before time.Time) (int64, error) {
	var n int64
	err := pgx.BeginFunc(ctx, s.Pool(), func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, `WITH p AS (
				SELECT id FROM deliveries WHERE created_at < $1 AND status IN ('succeeded', 'exhausted')
				AND next_attempt_at IS NULL AND lease_until IS NULL
			), a AS (DELETE FROM attempts WHERE delivery_id IN (SELECT id FROM p))
			, d AS (DELETE FROM deliveries WHERE id IN (SELECT id FROM p) RETURNING 1)
			SELECT count(*) FROM d`, before).Scan(&n)
	})
	if err != nil {
		return n, err
	}
	cutoff := before
	if w := time.Now().Add(-webhook.EventWindow); w.Before(cutoff) {
		cutoff = w
	}
	_, err = s.PruneEvents(ctx, cutoff)
	return n, err
}

// PruneEvents deletes, in batches, the messages created before before
// that no delivery refers to, and counts them.
func (s *Store) PruneEvents(ctx context.Context, before time.Time) (int64, error) {
	var total int64
	for {
		tag, err := s.Pool().Exec(ctx, `DELETE FROM messages WHERE id IN (
			SELECT m.id FROM messages m WHERE m.created_at < $1
			AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.message_id = m.id) LIMIT $2)`, before, pruneBatch)
		if err != nil {
			return total, err
		}
		total += tag.RowsAffected()
		if tag.RowsAffected() < pruneBatch {
			return total, nil
		}
	}
}
