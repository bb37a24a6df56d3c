package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// Prune deletes the log of deliveries that ended (succeeded or exhausted,
// nothing due) and were created before before, with their attempts, and
// then the messages no delivery refers to. Deliveries still retrying are
// kept whatever their age, so nothing that may yet be sent is lost.
func (s *Store) Prune(ctx context.Context, before time.Time) (int64, error) {
	var n int64
	err := pgx.BeginFunc(ctx, s.Pool(), func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `WITH p AS (
				SELECT id FROM deliveries WHERE created_at < $1 AND status IN ('succeeded', 'exhausted')
				AND next_attempt_at IS NULL AND lease_until IS NULL
			), a AS (DELETE FROM attempts WHERE delivery_id IN (SELECT id FROM p))
			, d AS (DELETE FROM deliveries WHERE id IN (SELECT id FROM p) RETURNING 1)
			SELECT count(*) FROM d`, before).Scan(&n)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `DELETE FROM messages m WHERE created_at < $1
			AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.message_id = m.id)`, before)
		return err
	})
	return n, err
}
