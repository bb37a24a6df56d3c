package postgres

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/pkg/pgdb"
	"github.com/kycfield/kyc/services/verification/internal/verification"
)

var errRefused = errors.New("sign-in attempt refused")

// ReserveSignIn implements verification.Store: every counter is bumped
// in one transaction, rows locked in key order (so two attempts cannot
// deadlock), and the transaction rolls back when any counter was already
// full, so a refused attempt counts nowhere.
func (s *Store) ReserveSignIn(ctx context.Context, limits []verification.SignInLimit, now time.Time, window time.Duration) (time.Time, error) {
	sorted := slices.SortedFunc(slices.Values(limits), func(a, b verification.SignInLimit) int { return cmp.Compare(a.Key, b.Key) })
	var retry time.Time
	err := pgx.BeginFunc(ctx, s.Pool(), func(tx pgx.Tx) error {
		for _, l := range sorted {
			var n int
			var end time.Time
			err := tx.QueryRow(ctx, `INSERT INTO agent_signin_attempts AS a (key, attempts, window_end) VALUES ($1, 1, $3)
				ON CONFLICT (key) DO UPDATE SET
					attempts = CASE WHEN a.window_end <= $2 THEN 1 ELSE a.attempts + 1 END,
					window_end = CASE WHEN a.window_end <= $2 THEN EXCLUDED.window_end ELSE a.window_end END
				RETURNING attempts, window_end`, l.Key, now, now.Add(window)).Scan(&n, &end)
			if err != nil {
				return err
			}
			if n > l.Max && end.After(retry) {
				retry = end
			}
		}
		if !retry.IsZero() {
			return errRefused
		}
		// Keep the table to the windows in use: a few stale rows go with
		// each counted attempt (skipping rows another attempt holds).
		_, err := tx.Exec(ctx, `DELETE FROM agent_signin_attempts WHERE key IN (
			SELECT key FROM agent_signin_attempts WHERE window_end < $1 LIMIT 20 FOR UPDATE SKIP LOCKED)`, now.Add(-window))
		return err
	})
	if errors.Is(err, errRefused) {
		return retry, nil
	}
	return time.Time{}, pgdb.Translate(err)
}

// SignedIn implements verification.Store.
func (s *Store) SignedIn(ctx context.Context, giveBack, clear string) error {
	_, err := s.Pool().Exec(ctx, `WITH cleared AS (DELETE FROM agent_signin_attempts WHERE key = $2)
		UPDATE agent_signin_attempts SET attempts = attempts - 1 WHERE key = $1 AND attempts > 0`, giveBack, clear)
	return pgdb.Translate(err)
}
