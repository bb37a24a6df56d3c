package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// NextSandboxDue is when the earliest open sandbox job falls due (zero:
// none), read off the sandbox queue's index, so that the sandbox worker
// sleeps until then instead of polling an idle queue.
func NextSandboxDue(ctx context.Context, pool *pgxpool.Pool) (time.Time, error) {
	var next *time.Time
	err := pool.QueryRow(ctx, `SELECT min(due_at) FROM jobs
		WHERE env = 'test' AND due_at IS NOT NULL AND status IN ('PENDING', 'ASSIGNED', 'IN_PROGRESS')`).Scan(&next)
	if err != nil || next == nil {
		return time.Time{}, err
	}
	return *next, nil
}
