// Package render runs the reporting service's render workers: they render
// the report versions the consumers queued, outside their transactions.
package render

import (
	"context"
	"log/slog"
	"sync"
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
//
// One listener takes each announcement. Only when it finds a queue (a
// second render right after the first) does it call in up to Parallel-1
// more renderers, which stop at the first empty claim: a render waits on
// photo reads and MinIO as well as the CPU, so a queue drains faster with
// a few at once, while a lone render costs what it did with one worker
// (independent listeners would each wake, claim nothing and look up the
// next due time at every announcement).
type Worker struct {
	Service  *report.Service
	Pool     *pgxpool.Pool
	Poll     time.Duration
	Parallel int // renders at once; below 1 counts as 1
	Log      *slog.Logger
}

// Run works until ctx ends; a failed render is logged and retried when
// it falls due again.
func (w *Worker) Run(ctx context.Context) error {
	return pgdb.Worker{Pool: w.Pool, Channel: postgres.NotifyChannel, Poll: w.Poll, Log: w.Log, Name: "render worker",
		Next: func(ctx context.Context) (time.Time, error) { return postgres.NextRenderDue(ctx, w.Pool) },
		Work: func(ctx context.Context) (bool, error) {
			// Two renders in a row mean a queue: only then are the others
			// called in. A lone render costs what it did with one worker.
			if !w.renderOne(ctx) {
				return false, nil
			}
			if !w.renderOne(ctx) {
				return false, nil
			}
			var wg sync.WaitGroup
			for range w.Parallel - 1 {
				wg.Go(func() { w.drain(ctx) })
			}
			w.drain(ctx)
			wg.Wait()
			return false, nil
		}}.Run(ctx)
}

// drain renders until the queue has nothing due or ctx ends.
func (w *Worker) drain(ctx context.Context) {
	for w.renderOne(ctx) {
	}
}

// renderOne renders the next due render, if any, and says whether it took
// one (a failed render counts: it is queued again for later).
func (w *Worker) renderOne(ctx context.Context) bool {
	if ctx.Err() != nil {
		return false // told to stop: take no new render
	}
	// A render taken is finished even when the process is told to stop
	// meanwhile (within its drain), rather than abandoned half way with
	// its photo reads cut off and done again elsewhere.
	hand, done := server.Hand(ctx)
	defer done()
	did, err := w.Service.RenderNext(hand)
	if err != nil {
		w.Log.WarnContext(ctx, "report render failed; will retry", "err", err)
	}
	return did
}
