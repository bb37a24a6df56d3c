// Package render runs the reporting service's render workers: they render
// the report versions the consumers queued, outside their transactions.
package render

import (
	"context"
	"errors"
	"fmt"
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
// second render due right after the first) does it call in up to
// Parallel-1 more renderers: a render waits on photo reads and MinIO as
// well as the CPU, so a queue drains faster with a few at once, while a
// lone render costs what it did with one worker (independent listeners
// would each wake, claim nothing and look up the next due time at every
// announcement).
//
// A renderer goes on while the queue has a render due, as the statement
// that ended its last render (or its claim that found nothing) saw it,
// and the worker sleeps until the earliest due time they saw: a lone
// render is two transactions, its claim and its render, with no claim
// that finds nothing and no query for the next due time after it. A
// render's NOTIFY (its payload the render's id) can still be waiting to
// be read when a renderer has taken the render (a render queued during
// another is taken right after it): the worker remembers the renders it
// took and does not wake for those.
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
	var due dueTimes
	return pgdb.Worker{Pool: w.Pool, Channel: postgres.NotifyChannel, Poll: w.Poll, Log: w.Log, Name: "render worker",
		Next: func(context.Context) (time.Time, error) { return due.earliest(), nil },
		Done: due.took,
		Work: func(ctx context.Context) (bool, error) {
			due.reset()
			// Two renders in a row mean a queue: only then are the others
			// called in. A lone render costs what it did with one worker.
			if !w.renderOne(ctx, &due) {
				return false, due.failure()
			}
			if !w.renderOne(ctx, &due) {
				return false, due.failure()
			}
			var wg sync.WaitGroup
			for range w.Parallel - 1 {
				wg.Go(func() { w.drain(ctx, &due) })
			}
			w.drain(ctx, &due)
			wg.Wait()
			return false, due.failure()
		}}.Run(ctx)
}

// drain renders until the queue has nothing due or ctx ends.
func (w *Worker) drain(ctx context.Context, due *dueTimes) {
	for w.renderOne(ctx, due) {
	}
}

// renderOne renders the next due render, if any, and says whether to go
// on: it took one and another is due now (a failed render counts: it is
// queued again for later, and the next claim sees when). When it stops,
// it leaves in due when the next render falls due, or the claim's error.
func (w *Worker) renderOne(ctx context.Context, due *dueTimes) bool {
	if ctx.Err() != nil {
		return false // told to stop: take no new render
	}
	// A render taken is finished even when the process is told to stop
	// meanwhile (within its drain), rather than abandoned half way with
	// its photo reads cut off and done again elsewhere.
	hand, done := server.Hand(ctx)
	defer done()
	id, next, err := w.Service.RenderNext(hand)
	did := id != ""
	if did {
		due.take(id)
	}
	switch {
	case err != nil && !did:
		due.fail(err) // the claim failed: the session starts again
		return false
	case err != nil:
		w.Log.WarnContext(ctx, "report render failed; will retry", "err", err)
	}
	if did && !next.IsZero() && !next.After(time.Now()) {
		return true // another is due now (zero: none queued)
	}
	due.note(next)
	return false
}

// dueTimes gathers, over one round, when each renderer that stopped saw
// the next render fall due, and a claim's failure; and, over rounds, the
// renders taken.
type dueTimes struct {
	mu    sync.Mutex
	next  time.Time // the earliest seen; zero: none queued
	err   error
	taken recent
}

// take remembers that a renderer took render id.
func (d *dueTimes) take(id string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.taken.add(id)
}

// took reports whether a renderer took render id (a notification's
// payload): the worker need not wake for it.
func (d *dueTimes) took(id string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.taken.has(id)
}

func (d *dueTimes) reset() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.next, d.err = time.Time{}, nil
}

// note keeps the earliest due time: each renderer read the queue after
// its own last change, so the earliest of them covers every change made
// in the round (a retry another renderer queued is in its own reading).
func (d *dueTimes) note(next time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !next.IsZero() && (d.next.IsZero() || next.Before(d.next)) {
		d.next = next
	}
}

func (d *dueTimes) fail(err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.err = errors.Join(d.err, err)
}

func (d *dueTimes) earliest() time.Time {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.next
}

func (d *dueTimes) failure() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.err != nil {
		return fmt.Errorf("claim: %w", d.err)
	}
	return nil
}

// recentSize bounds the renders remembered: a NOTIFY is read at most a
// round or two after its render was taken, and a notification of a
// render forgotten only costs a claim that finds nothing.
const recentSize = 256

// recent is the last recentSize ids added.
type recent struct {
	ids  [recentSize]string
	next int
	set  map[string]struct{}
}

func (r *recent) add(id string) {
	if r.set == nil {
		r.set = make(map[string]struct{}, recentSize)
	}
	if r.has(id) {
		return // a retry taken again: one entry, so eviction forgets it whole
	}
	delete(r.set, r.ids[r.next])
	r.ids[r.next] = id
	r.set[id] = struct{}{}
	r.next = (r.next + 1) % recentSize
}

func (r *recent) has(id string) bool {
	_, ok := r.set[id]
	return ok
}
