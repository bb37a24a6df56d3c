// Package render runs the reporting service's render worker: it renders
// the report versions the consumers queued, outside their transactions.
package render

import (
	"context"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kycfield/kyc/pkg/pgdb"
	"github.com/kycfield/kyc/services/reporting/internal/postgres"
	"github.com/kycfield/kyc/services/reporting/internal/report"
)

// Worker renders queued reports: at once when a transaction announces
// one, otherwise every Poll (renders retried after a failure fall due
// later, unannounced).
type Worker struct {
	Service *report.Service
	Pool    *pgxpool.Pool
	Poll    time.Duration
	Log     *slog.Logger
}

// Run works until ctx ends; failures are logged and retried.
func (w *Worker) Run(ctx context.Context) error {
	for ctx.Err() == nil {
		if err := w.listen(ctx); err != nil && ctx.Err() == nil {
			w.Log.Warn("render worker restarting", "err", err)
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
	}
	return nil
}

func (w *Worker) listen(ctx context.Context) error {
	l, err := pgdb.Listen(ctx, w.Pool, postgres.NotifyChannel)
	if err != nil {
		return err
	}
	defer l.Close()
	for ctx.Err() == nil {
		did, err := w.Service.RenderNext(ctx)
		if err != nil {
			w.Log.WarnContext(ctx, "report render failed; will retry", "err", err)
		}
		if did {
			continue
		}
		if err := l.Wait(ctx, w.Poll); err != nil {
			return err
		}
	}
	return nil
}
