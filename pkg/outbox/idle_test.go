package outbox_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/eventually"
	"github.com/kycfield/kyc/pkg/kafkabus"
	"github.com/kycfield/kyc/pkg/kafkatest"
	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/pkg/outbox"
	"github.com/kycfield/kyc/pkg/pgtest"
)

// noPoll is a safety poll no test waits out: a row the protocol misses
// is never published within the test's timeouts.
const noPoll = time.Hour

// steps is what a relay under test reports of its protocol.
type steps struct {
	fenced  chan bool   // each attempt to fence off the writers
	isIdle  atomic.Bool // confirmed idle, not told busy since
	idles   atomic.Int64
	busies  atomic.Int64
	refused atomic.Int64 // fences refused by an open writer
}

func newSteps() *steps { return &steps{fenced: make(chan bool, 1)} }

func (s *steps) fence(ok bool) {
	if !ok {
		s.refused.Add(1)
	}
	select {
	case s.fenced <- ok:
	default:
	}
}

func (s *steps) mode(idle bool) {
	s.isIdle.Store(idle)
	if idle {
		s.idles.Add(1)
	} else {
		s.busies.Add(1)
	}
}

// untilIdle waits until the relay is idle, waiting for a NOTIFY (a
// barrier).
func (s *steps) untilIdle(t *testing.T) {
	t.Helper()
	eventually.True(t, 30*time.Second, "the relay idle", s.isIdle.Load)
}

// runSlow starts a relay with no safety poll to speak of.
func runSlow(t *testing.T, pool *pgxpool.Pool, bus kafkabus.Config, st *steps) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	w := kafkabus.NewWriter(bus)
	r := outbox.NewRelay(pool, w, logging.Discard()).WithSafetyPoll(noPoll).WithHooks(st.fence, st.mode)
	go func() { _ = r.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done; w.Close() })
}

// waitAll reads until every id in want has been published, failing the
// test if that takes longer than within.
func waitAll(t *testing.T, reader *kafkatest.Reader, want map[string]bool, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for len(want) > 0 {
		left := time.Until(deadline)
		if left <= 0 {
			t.Fatalf("%d committed events never published", len(want))
		}
		e := reader.WaitFor(func(event.Event) bool { return true }, left)
		delete(want, e.ID)
	}
}

// openPool is a second pool on the test's database, for many writers.
func openPool(t *testing.T, url string, size int32) *pgxpool.Pool {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = size
	p, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

// TestEveryCommittedEventIsPublishedAcrossIdleAndBusy is the protocol's
// property: many writers in bursts, some straight after each other, some
// after the relay went idle, and every committed event is published
// without the safety poll, whatever the writers read of the relay.
func TestEveryCommittedEventIsPublishedAcrossIdleAndBusy(t *testing.T) {
	t.Parallel()
	pool, url := pgtest.NewDB(t, outbox.Migration())
	bus := kafkatest.Config(t)
	topic := bus.Topic("things")
	if err := kafkabus.EnsureTopics(context.Background(), bus, topic); err != nil {
		t.Fatal(err)
	}
	reader := kafkatest.Follow(t, bus, topic)
	st := newSteps()
	runSlow(t, pool, bus, st)
	writers := openPool(t, url, 12)

	want := map[string]bool{}
	var mu sync.Mutex
	commit := func(key string) error {
		ids, err := writeTx(writers, topic, key, 1+rand.IntN(3))
		mu.Lock()
		defer mu.Unlock()
		for _, id := range ids {
			want[id] = true
		}
		return err
	}
	const minTransitions = 20
	for burst := 0; st.idles.Load() < minTransitions || st.busies.Load() < minTransitions; burst++ {
		if burst == 300 {
			t.Fatalf("300 bursts gave %d idle and %d busy transitions: the test did not exercise the protocol",
				st.idles.Load(), st.busies.Load())
		}
		// Every fourth burst trickles: commits a few milliseconds apart,
		// so the relay goes idle while writers are open.
		trickle := burst%4 == 3
		var wg sync.WaitGroup
		for w := range 12 {
			wg.Go(func() {
				for range 1 + rand.IntN(6) {
					if err := commit(fmt.Sprintf("cus_%d", w%5)); err != nil {
						t.Error(err)
						return
					}
					if trickle {
						time.Sleep(time.Duration(rand.IntN(5000)) * time.Microsecond)
					}
				}
			})
		}
		wg.Wait()
		if t.Failed() {
			t.FailNow()
		}
		switch burst % 3 {
		case 0: // the next burst while the relay is still busy
		case 1: // a gap, during which it may be going idle
			time.Sleep(time.Duration(rand.IntN(8)) * time.Millisecond)
		case 2:
			st.untilIdle(t)
		}
	}
	t.Logf("%d events; relay went idle %d times, busy %d times, an open writer refused %d fences",
		len(want), st.idles.Load(), st.busies.Load(), st.refused.Load())
	waitAll(t, reader, want, time.Minute)
}

// TestWriterOpenWhileTheRelayGoesIdleIsPublished: a writer reads "busy"
// (no NOTIFY), the relay then goes idle, and only afterwards the writer
// commits. The relay must not wait for a NOTIFY that will not come.
func TestWriterOpenWhileTheRelayGoesIdleIsPublished(t *testing.T) {
	t.Parallel()
	pool, bus, topic := setup(t)
	reader := kafkatest.Follow(t, bus, topic)
	ctx := context.Background()
	// As a relay that was busy when it stopped left it.
	if _, err := pool.Exec(ctx, `UPDATE outbox_relay SET idle = false`); err != nil {
		t.Fatal(err)
	}
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	open := addOne(t, tx, topic)

	st := newSteps()
	runSlow(t, pool, bus, st)
	// Barrier: the relay has committed idle = true and its first attempt
	// to go idle is over, made while this writer was open.
	select {
	case <-st.fenced:
	case <-time.After(30 * time.Second):
		t.Fatal("the relay never tried to go idle")
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	waitAll(t, reader, map[string]bool{open: true}, 30*time.Second)

	// And once idle, a writer's NOTIFY wakes it.
	st.untilIdle(t)
	later := write(t, pool, topic, "cus_1", 1, true)[0]
	waitAll(t, reader, map[string]bool{later: true}, 30*time.Second)
}

// TestAddHoldsTheWritersLockUntilCommit: the lock rides on Add's first
// INSERT, and it is what keeps a relay from going idle under an open
// writer, so an open transaction that added events (one or several) must
// refuse the relay's exclusive try, and a committed one must not.
func TestAddHoldsTheWritersLockUntilCommit(t *testing.T) {
	t.Parallel()
	pool, _, topic := setup(t)
	ctx := context.Background()
	tryExclusive := func() bool {
		var got bool
		err := pool.QueryRow(ctx, `SELECT CASE WHEN pg_try_advisory_lock($1) THEN pg_advisory_unlock($1) ELSE false END`,
			int64(outbox.WritersLockKey)).Scan(&got)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	stored := 0
	for _, n := range []int{1, 3} {
		tx, err := pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = tx.Rollback(ctx) }() // a failed check leaves it open
		msgs := make([]outbox.Message, n)
		for i := range msgs {
			e, _ := event.New("thing.happened", "org_1", "test", map[string]int{"seq": i})
			msgs[i] = outbox.Message{Topic: topic, Key: "cus_1", Event: e}
		}
		if err := outbox.Add(ctx, tx, msgs...); err != nil {
			t.Fatal(err)
		}
		if tryExclusive() {
			t.Fatalf("%d messages: the relay took the writers' lock while a writer was open", n)
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		if !tryExclusive() {
			t.Fatalf("%d messages: the writers' lock outlived the writer's commit", n)
		}
		stored += n
		var rows int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM outbox`).Scan(&rows); err != nil || rows != stored {
			t.Fatalf("%d messages: %d rows stored in all, want %d (%v)", n, rows, stored, err)
		}
	}
}

// TestRepeatableReadWriterWakesTheRelay: a REPEATABLE READ transaction
// reads outbox_relay as of its first statement, which can be before the
// relay went idle; it must NOTIFY all the same.
func TestRepeatableReadWriterWakesTheRelay(t *testing.T) {
	t.Parallel()
	pool, bus, topic := setup(t)
	reader := kafkatest.Follow(t, bus, topic)
	ctx := context.Background()
	if _, err := pool.Exec(ctx, `UPDATE outbox_relay SET idle = false`); err != nil {
		t.Fatal(err)
	}
	tx, err := pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	var idle bool
	if err := tx.QueryRow(ctx, `SELECT idle FROM outbox_relay`).Scan(&idle); err != nil || idle {
		t.Fatalf("snapshot: idle %t, %v", idle, err)
	}
	st := newSteps()
	runSlow(t, pool, bus, st)
	st.untilIdle(t)
	id := addOne(t, tx, topic)
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	waitAll(t, reader, map[string]bool{id: true}, 30*time.Second)
}

func addOne(t *testing.T, tx pgx.Tx, topic string) string {
	t.Helper()
	e, _ := event.New("thing.happened", "org_1", "test", map[string]int{"seq": 0})
	if err := outbox.Add(context.Background(), tx, outbox.Message{Topic: topic, Key: "cus_1", Event: e}); err != nil {
		t.Fatal(err)
	}
	return e.ID
}

// writeTx commits n events in one transaction and returns their ids (none
// if it failed): write for goroutines other than the test's.
func writeTx(pool *pgxpool.Pool, topic, key string, n int) ([]string, error) {
	ctx := context.Background()
	var ids []string
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		for i := range n {
			e, err := event.New("thing.happened", "org_1", "test", map[string]int{"seq": i})
			if err != nil {
				return err
			}
			ids = append(ids, e.ID)
			if err := outbox.Add(ctx, tx, outbox.Message{Topic: topic, Key: key, Event: e}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ids, nil
}
