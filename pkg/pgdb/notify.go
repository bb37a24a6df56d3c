package pgdb

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kycfield/kyc/pkg/backoff"
)

// Worker is the notify-and-poll loop of a background worker (the outbox
// relay, the sandbox simulation, the webhook dispatcher). It LISTENs on
// Channel on a dedicated connection and runs Work at once when a
// transaction's NOTIFY (sent at its commit) arrives, every Poll without
// one (work can fall due by time alone; with Next, when it falls due),
// and again straight away while Work reports more to do. A failure (the
// connection lost, Work's error) is logged and the loop starts again on a
// new connection after a pause that doubles from Restart up to 10 s while
// failures follow each other. A notification sent while the connection
// was being replaced is not waited for: a new session works first.
type Worker struct {
	Pool    *pgxpool.Pool
	Channel string
	Poll    time.Duration
	// Work does one round; more means there may be more to do now (it
	// took a full batch).
	Work func(ctx context.Context) (more bool, err error)
	// Start, if set, runs on each new listening connection before the
	// first round; a relay waits there until it is elected (a session
	// lock held on that connection).
	Start func(ctx context.Context, conn *pgxpool.Conn) error
	// Wake, if set, ends a wait early too (a dispatcher's freed slot).
	Wake <-chan struct{}
	// Next, if set, says when the earliest work that no NOTIFY announces
	// falls due (a retry, a delayed job; zero: none). After a round that
	// left nothing to do the worker then sleeps until that moment, but
	// never less than Poll and never more than Idle, instead of waking
	// every Poll: an idle platform then costs nothing, and timed work is
	// taken when it falls due rather than up to a Poll later.
	Next func(ctx context.Context) (time.Time, error)
	// Done, if set, says that a notification (by its payload) announces
	// work this worker has done already: one whose NOTIFY was still
	// waiting to be read when a round took its work (the round saw the
	// committed row first). The worker then goes on waiting instead of
	// starting a round that would find nothing.
	Done func(payload string) bool
	// Idle bounds the sleep when Next finds nothing due (a net for work
	// written without a NOTIFY); a minute by default.
	Idle time.Duration
	// Restart is the first pause after a failure; a second by default.
	Restart time.Duration
	// Log gets a warning at each restart, naming the worker by Name.
	Log  *slog.Logger
	Name string
}

// defaultIdle is Worker.Idle's default.
const defaultIdle = time.Minute

// maxRestart bounds the pause between restarts, so that a worker is back
// within seconds of its database.
const maxRestart = 10 * time.Second

// Run works until ctx ends, and then returns nil.
func (w Worker) Run(ctx context.Context) error {
	pause := backoff.Backoff{Min: w.Restart, Max: maxRestart}
	if pause.Min <= 0 {
		pause.Min = time.Second
	}
	for ctx.Err() == nil {
		if err := w.session(ctx, pause.Reset); err != nil && ctx.Err() == nil {
			w.Log.Warn(w.Name+" restarting", "err", err)
			pause.Wait(ctx)
		}
	}
	return nil
}

// session works on one listening connection until it fails or ctx ends;
// worked is called after each successful round.
func (w Worker) session(ctx context.Context, worked func()) error {
	l, err := Listen(ctx, w.Pool, w.Channel)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	defer l.Close()
	if w.Start != nil {
		if err := w.Start(ctx, l.Conn()); err != nil {
			return err
		}
	}
	for ctx.Err() == nil {
		more, err := w.Work(ctx)
		if err != nil {
			return err
		}
		worked()
		if more {
			continue
		}
		if err := w.wait(ctx, l); err != nil && ctx.Err() == nil {
			return fmt.Errorf("wait: %w", err)
		}
	}
	return nil
}

// sleep is how long to wait for a notification after a round that left
// nothing to do.
func (w Worker) sleep(ctx context.Context) (time.Duration, error) {
	if w.Next == nil {
		return w.Poll, nil
	}
	idle := w.Idle
	if idle <= 0 {
		idle = defaultIdle
	}
	next, err := w.Next(ctx)
	if err != nil {
		return 0, fmt.Errorf("next: %w", err)
	}
	d := idle
	if !next.IsZero() {
		d = time.Until(next)
	}
	return min(max(d, w.Poll), max(idle, w.Poll)), nil
}

// wait returns at a notification of work not Done, a Wake, when the next
// timed work falls due, or when ctx ends; an error means the connection
// is broken.
func (w Worker) wait(ctx context.Context, l *Listener) error {
	d, err := w.sleep(ctx)
	if err != nil {
		return err
	}
	until := time.Now().Add(d)
	for {
		n, err := w.waitOnce(ctx, l, time.Until(until))
		if err != nil || n == nil || w.Done == nil || !w.Done(n.Payload) {
			return err
		}
	}
}

// waitOnce returns the notification that arrived, or nil at a Wake or
// after d.
func (w Worker) waitOnce(ctx context.Context, l *Listener, d time.Duration) (*pgconn.Notification, error) {
	if w.Wake == nil {
		return l.Wait(ctx, d)
	}
	select {
	case <-w.Wake:
		return nil, nil
	default:
	}
	// A wake cancels the wait; pgx ends a cancelled wait with a read
	// deadline, which leaves the connection usable.
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	waiting := make(chan struct{})
	defer close(waiting)
	go func() {
		select {
		case <-w.Wake:
			cancel()
		case <-waiting:
		}
	}()
	n, err := l.Wait(wctx, d)
	if err != nil && ctx.Err() == nil && wctx.Err() != nil {
		return nil, nil // woken
	}
	return n, err
}
