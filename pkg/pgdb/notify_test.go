package pgdb_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/pkg/pgdb"
	"github.com/kycfield/kyc/pkg/pgtest"
)

// start runs w until the test ends, and checks that Run returns when its
// context does.
func start(t *testing.T, w pgdb.Worker) {
	t.Helper()
	w.Log, w.Name = logging.Discard(), "test worker"
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Error("Run did not return after its context ended")
		}
	})
}

// rounds counts Work's rounds and reports each on a channel.
type rounds struct {
	n    atomic.Int64
	ran  chan struct{}
	more func(n int64) bool
	fail func(n int64) error
}

func newRounds() *rounds { return &rounds{ran: make(chan struct{}, 100)} }

func (r *rounds) work(context.Context) (bool, error) {
	n := r.n.Add(1)
	select {
	case r.ran <- struct{}{}:
	default: // a test that stopped counting
	}
	if r.fail != nil {
		if err := r.fail(n); err != nil {
			return false, err
		}
	}
	return r.more != nil && r.more(n), nil
}

// next waits for the next round, failing the test after within.
func (r *rounds) next(t *testing.T, within time.Duration, why string) {
	t.Helper()
	select {
	case <-r.ran:
	case <-time.After(within):
		t.Fatalf("no round within %v: %s", within, why)
	}
}

// quiet checks that no round runs for d.
func (r *rounds) quiet(t *testing.T, d time.Duration) {
	t.Helper()
	select {
	case <-r.ran:
		t.Fatal("a round ran with nothing to wake it")
	case <-time.After(d):
	}
}

func notify(t *testing.T, pool *pgxpool.Pool, channel string) {
	t.Helper()
	if _, err := pool.Exec(context.Background(), `SELECT pg_notify($1, '')`, channel); err != nil {
		t.Fatal(err)
	}
}

func TestWorkerWakesOnNotifyAndPolls(t *testing.T) {
	t.Parallel()
	pool, _ := pgtest.NewDB(t)
	r := newRounds()
	started := make(chan struct{}, 1)
	start(t, pgdb.Worker{Pool: pool, Channel: "test_work", Poll: time.Hour, Work: r.work,
		Start: func(context.Context, *pgxpool.Conn) error { started <- struct{}{}; return nil }})
	<-started
	r.next(t, 5*time.Second, "the first round runs at once")
	r.quiet(t, 200*time.Millisecond)
	notify(t, pool, "test_work")
	r.next(t, 2*time.Second, "a NOTIFY wakes the worker long before its poll")

	polled := newRounds()
	start(t, pgdb.Worker{Pool: pool, Channel: "test_poll", Poll: 50 * time.Millisecond, Work: polled.work})
	for range 3 {
		polled.next(t, 2*time.Second, "without a NOTIFY the worker polls")
	}
}

// With Next, an idle worker sleeps until its timed work falls due (not
// every Poll), and no longer than Idle when nothing is due.
func TestWorkerSleepsUntilTheNextDueWork(t *testing.T) {
	t.Parallel()
	pool, _ := pgtest.NewDB(t)
	r := newRounds()
	var mu sync.Mutex
	due := time.Now().Add(700 * time.Millisecond)
	start(t, pgdb.Worker{Pool: pool, Channel: "test_next", Poll: 20 * time.Millisecond, Idle: time.Hour, Work: r.work,
		Next: func(context.Context) (time.Time, error) {
			mu.Lock()
			defer mu.Unlock()
			return due, nil
		}})
	r.next(t, 5*time.Second, "the first round runs at once")
	r.quiet(t, 500*time.Millisecond) // not every Poll (20 ms)
	r.next(t, 2*time.Second, "the round when the work falls due")
	// Past due (the work is blocked elsewhere): it looks every Poll.
	r.next(t, time.Second, "past due: every Poll")
	r.next(t, time.Second, "past due: every Poll")
	mu.Lock()
	due = time.Time{} // nothing due: sleep Idle, woken by a NOTIFY
	mu.Unlock()
	time.Sleep(100 * time.Millisecond)
	for len(r.ran) > 0 {
		<-r.ran
	}
	r.quiet(t, 300*time.Millisecond)
	notify(t, pool, "test_next")
	r.next(t, 2*time.Second, "a NOTIFY still wakes it")

	idle := newRounds()
	start(t, pgdb.Worker{Pool: pool, Channel: "test_idle", Poll: 10 * time.Millisecond, Idle: 100 * time.Millisecond, Work: idle.work,
		Next: func(context.Context) (time.Time, error) { return time.Time{}, nil }})
	for range 3 {
		idle.next(t, 2*time.Second, "nothing due: the worker still looks every Idle")
	}
}

func TestWorkerRunsAgainWhileThereIsMore(t *testing.T) {
	t.Parallel()
	pool, _ := pgtest.NewDB(t)
	r := newRounds()
	r.more = func(n int64) bool { return n < 5 }
	start(t, pgdb.Worker{Pool: pool, Channel: "test_more", Poll: time.Hour, Work: r.work})
	for range 5 {
		r.next(t, 2*time.Second, "a full round is followed by another")
	}
	r.quiet(t, 200*time.Millisecond)
}

func TestWorkerWakesOnItsChannel(t *testing.T) {
	t.Parallel()
	pool, _ := pgtest.NewDB(t)
	r := newRounds()
	wake := make(chan struct{}, 1)
	start(t, pgdb.Worker{Pool: pool, Channel: "test_wake", Poll: time.Hour, Work: r.work, Wake: wake})
	r.next(t, 5*time.Second, "the first round runs at once")
	for range 3 {
		time.Sleep(50 * time.Millisecond) // let it wait
		wake <- struct{}{}
		r.next(t, 2*time.Second, "a wake ends the wait")
	}
	// The listening connection survives the woken waits.
	notify(t, pool, "test_wake")
	r.next(t, 2*time.Second, "a NOTIFY after wakes still arrives")
}

func TestWorkerRestartsOnANewConnection(t *testing.T) {
	t.Parallel()
	pool, _ := pgtest.NewDB(t)
	r := newRounds()
	pids := make(chan uint32, 10)
	start(t, pgdb.Worker{Pool: pool, Channel: "test_restart", Poll: time.Hour, Work: r.work, Restart: 10 * time.Millisecond,
		Start: func(_ context.Context, c *pgxpool.Conn) error { pids <- c.Conn().PgConn().PID(); return nil }})
	first := <-pids
	r.next(t, 5*time.Second, "the first round runs at once")
	if _, err := pool.Exec(context.Background(), `SELECT pg_terminate_backend($1)`, first); err != nil {
		t.Fatal(err)
	}
	select {
	case second := <-pids:
		if second == first {
			t.Fatal("restarted on the terminated connection")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no restart after the listening connection was lost")
	}
	r.next(t, 5*time.Second, "a restart works at once")
	notify(t, pool, "test_restart")
	r.next(t, 2*time.Second, "the new connection listens")

	// A failing round restarts too, with a growing pause.
	failing := newRounds()
	failing.fail = func(n int64) error {
		if n <= 3 {
			return errors.New("round failed")
		}
		return nil
	}
	begun := time.Now()
	start(t, pgdb.Worker{Pool: pool, Channel: "test_fail", Poll: time.Hour, Work: failing.work, Restart: 20 * time.Millisecond})
	for range 4 {
		failing.next(t, 5*time.Second, "a failed round is retried")
	}
	if d := time.Since(begun); d < (20+40+80)*time.Millisecond {
		t.Fatalf("three failures retried within %v: the pause does not grow", d)
	}
}

// A notification whose work a round already took (Done) starts no round,
// so a worker that took a render before reading its NOTIFY does not then
// claim and find nothing; other notifications still wake it.
func TestWorkerSkipsNotificationsOfWorkDone(t *testing.T) {
	t.Parallel()
	pool, _ := pgtest.NewDB(t)
	r := newRounds()
	barrier := make(chan int64, 1)
	start(t, pgdb.Worker{Pool: pool, Channel: "test_done", Poll: time.Hour, Work: r.work,
		Done: func(payload string) bool {
			if payload == "barrier" {
				barrier <- r.n.Load() // every earlier notification is handled by now
			}
			return payload == "taken"
		}})
	r.next(t, 5*time.Second, "the first round runs at once")
	if _, err := pool.Exec(context.Background(), `SELECT pg_notify('test_done', 'taken'), pg_notify('test_done', 'new')`); err != nil {
		t.Fatal(err)
	}
	r.next(t, 2*time.Second, "a notification of new work wakes it")
	if _, err := pool.Exec(context.Background(), `SELECT pg_notify('test_done', 'barrier')`); err != nil {
		t.Fatal(err)
	}
	select {
	case n := <-barrier:
		if n != 2 {
			t.Fatalf("%d rounds before the barrier; want 2 (the first, and the new work's, none for the work taken)", n)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the barrier notification was not read")
	}
}
