package postgres

import (
	"context"
	"time"
)

// NextDue is when the earliest scheduled attempt of an enabled endpoint
// falls due (zero: none), one index probe per endpoint, so that an idle
// dispatcher sleeps until then instead of polling. A delivery in flight
// keeps its past due time until it is recorded, so while any is in
// flight the dispatcher looks as often as before (its Poll).
func (s *Store) NextDue(ctx context.Context) (time.Time, error) {
	var next *time.Time
	err := s.Pool().QueryRow(ctx, `SELECT min(d.next_attempt_at) FROM endpoints e, LATERAL (
			SELECT next_attempt_at FROM deliveries WHERE endpoint_id = e.id AND next_attempt_at IS NOT NULL
			ORDER BY next_attempt_at LIMIT 1) d
		WHERE e.enabled AND e.deleted_at IS NULL`).Scan(&next)
	if err != nil || next == nil {
		return time.Time{}, err
	}
	return *next, nil
}
