// Package render runs the reporting service's render worker: it renders
// the report versions the consumers queued, outside their transactions.
package render

import (
	"context"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kycfield/kyc/pkg/pgdb"
	"github.com/kycfield/kyc/pkg/server"
	"github.com/kycfield/kyc/services/reporting/internal/postgres"
	"github.com/kycfield/kyc/services/reporting/internal/report"
)

// Worker renders queued reports: at once when a transaction announces
// one, and a retried render (which falls due later, unannounced) when it
// falls due; idle, it sleeps instead of polling.
type Worker struct {
	Service *report.Service
	Pool    *pgxpool.Pool
	Poll    time.Duration
	Log     *slog.Logger
}

// Run works until ctx ends; a failed render is logged and retried when
// it falls due again.
func (w *Worker) Run(ctx context.Context) error {
	return pgdb.Worker{Pool: w.Pool, Channel: postgres.NotifyChannel, Poll: w.Poll, Log: w.Log, Name: "render worker",
		Next: func(ctx context.Context) (time.Time, error) { return postgres.NextRenderDue(ctx, w.Pool) },
		Work: func(ctx context.Context) (bool, error) {
			if ctx.Err() != nil {
				return false, nil // told to stop: take no new render
			}
			// A render taken is finished even when the process is told to
			// stop meanwhile (within its drain), rather than abandoned half
			// way with its photo reads cut off and done again elsewhere.
			hand, done := server.Hand(ctx)
			defer done()
			did, err := w.Service.RenderNext(hand)
			if err != nil {
				w.Log.WarnContext(ctx, "report render failed; will retry", "err", err)
			}
			return did, nil
		}}.Run(ctx)
}
