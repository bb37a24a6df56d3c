// Package importer runs the customer service's import worker: it creates
// the rows of started bulk imports, outside the requests that started
// them, so a job goes on after the browser is closed and resumes after a
// restart.
package importer

import (
	"context"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kycfield/kyc/pkg/pgdb"
	"github.com/kycfield/kyc/pkg/server"
	"github.com/kycfield/kyc/services/customer/internal/customer"
	"github.com/kycfield/kyc/services/customer/internal/postgres"
)

// Worker creates import rows: at once when a start announces a job,
// otherwise every Poll. Replicas share the work (rows are claimed with
// SKIP LOCKED).
type Worker struct {
	Service *customer.Service
	Pool    *pgxpool.Pool
	Poll    time.Duration
	Log     *slog.Logger
}

// batch is how many transactions (of up to 25 rows) one round runs
// before the loop looks again for a stop.
const batch = 4

// Run works until ctx ends.
func (w *Worker) Run(ctx context.Context) error {
	return pgdb.Worker{Pool: w.Pool, Channel: postgres.ImportNotifyChannel, Poll: w.Poll, Log: w.Log, Name: "import worker",
		Work: func(ctx context.Context) (bool, error) {
			for i := 0; i < batch; i++ {
				if ctx.Err() != nil {
					return false, nil // told to stop: the rest stays pending
				}
				// A row taken is finished within the drain rather than cut
				// off half way (it would roll back and be created later).
				hand, done := server.Hand(ctx)
				n, err := w.Service.CreateImportRows(hand)
				done()
				if err != nil {
					w.Log.WarnContext(ctx, "import rows not created; will retry", "err", err)
					return false, nil
				}
				if n == 0 {
					return false, nil
				}
			}
			return true, nil
		}}.Run(ctx)
}
