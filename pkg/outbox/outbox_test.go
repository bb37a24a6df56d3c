package outbox_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/segmentio/kafka-go"

	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/eventually"
	"github.com/kycfield/kyc/pkg/kafkabus"
	"github.com/kycfield/kyc/pkg/kafkatest"
	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/pkg/outbox"
	"github.com/kycfield/kyc/pkg/pgtest"
)

func write(t *testing.T, pool *pgxpool.Pool, topic, key string, n int, commit bool) []string {
	t.Helper()
	var ids []string
	tx, err := pool.Begin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		e, _ := event.New("thing.happened", "org_1", "test", map[string]int{"seq": i})
		ids = append(ids, e.ID)
		if err := outbox.Add(context.Background(), tx, outbox.Message{Topic: topic, Key: key, Event: e}); err != nil {
			t.Fatal(err)
		}
	}
	if commit {
		err = tx.Commit(context.Background())
	} else {
		err = tx.Rollback(context.Background())
	}
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// setup gives a test its own database (with the outbox table) and topic.
func setup(t *testing.T) (*pgxpool.Pool, kafkabus.Config, string) {
	pool, _ := pgtest.NewDB(t, outbox.Migration())
	bus := kafkatest.Config(t)
	topic := bus.Topic("things")
	if err := kafkabus.EnsureTopics(context.Background(), bus, topic); err != nil {
		t.Fatal(err)
	}
	return pool, bus, topic
}

// run starts a relay publishing with w until the returned stop is called
// (or the test ends); stop waits for the relay to return.
func run(t *testing.T, pool *pgxpool.Pool, w *kafka.Writer) (stop func()) {
	return runWith(t, pool, w, w)
}

func runWith(t *testing.T, pool *pgxpool.Pool, pub outbox.Publisher, w *kafka.Writer) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = outbox.NewRelay(pool, pub, logging.Discard()).Run(ctx); close(done) }()
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); <-done; w.Close() }) }
	t.Cleanup(stop)
	return stop
}

// barrier writes one more event for each key and reads events until all of
// them have arrived, returning everything read before. Events of a key
// leave in order and share a partition, so an extra event (a rolled-back
// one, a second publish) would be read before its key's barrier.
func barrier(t *testing.T, pool *pgxpool.Pool, topic string, reader *kafkatest.Reader, keys ...string) []event.Event {
	t.Helper()
	waiting := map[string]bool{}
	for _, k := range keys {
		waiting[write(t, pool, topic, k, 1, true)[0]] = true
	}
	var before []event.Event
	for len(waiting) > 0 {
		e := reader.WaitFor(func(event.Event) bool { return true }, 10*time.Second)
		if waiting[e.ID] {
			delete(waiting, e.ID)
			continue
		}
		before = append(before, e)
	}
	return before
}

func unpublished(t *testing.T, pool *pgxpool.Pool) int {
	var n int
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM outbox WHERE published_at IS NULL`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestCommittedEventsArePublishedInOrderAndRolledBackOnesNever(t *testing.T) {
	t.Parallel()
	pool, bus, topic := setup(t)
	reader := kafkatest.Follow(t, bus, topic)
	// Written while no relay runs (as after a crash): nothing is lost.
	early := write(t, pool, topic, "cus_1", 5, true)
	write(t, pool, topic, "cus_1", 3, false)
	run(t, pool, kafkabus.NewWriter(bus))
	late := write(t, pool, topic, "cus_1", 5, true)
	want := append(early, late...)
	start := time.Now()
	for i, id := range want {
		e := reader.WaitFor(func(event.Event) bool { return true }, 10*time.Second)
		if e.ID != id {
			t.Fatalf("event %d: got %s, want %s (order per key broken or rolled-back event leaked)", i, e.ID, id)
		}
	}
	t.Logf("10 events relayed in %s", time.Since(start))
	if extra := barrier(t, pool, topic, reader, "cus_1"); len(extra) != 0 {
		t.Fatalf("unexpected extra events: %d", len(extra))
	}
	eventually.Value(t, 10*time.Second, "every row marked published", func() (int, bool) {
		n := unpublished(t, pool)
		return n, n == 0
	})
}

func TestUnreachableBrokerDelaysButLosesNothing(t *testing.T) {
	t.Parallel()
	pool, bus, topic := setup(t)
	dead := bus
	dead.Brokers = []string{"127.0.0.1:1"}
	w := kafkabus.NewWriter(dead)
	w.MaxAttempts = 1
	pub := &recording{w: w, calls: make(chan []string, 16)}
	stop := runWith(t, pool, pub, w)
	ids := write(t, pool, topic, "cus_2", 3, true)
	// Barrier: the relay's second attempt. It offers the same three rows
	// again, so the failed first one marked none of them.
	for attempt := 1; attempt <= 2; attempt++ {
		select {
		case got := <-pub.calls:
			if !slices.Equal(got, ids) {
				t.Fatalf("attempt %d published %v, want %v", attempt, got, ids)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("no publish attempt %d", attempt)
		}
	}
	stop()
	pending := unpublished(t, pool)
	if pending != 3 {
		t.Fatalf("rows marked published though the broker was unreachable: %d pending", pending)
	}
	reader := kafkatest.Follow(t, bus, topic)
	run(t, pool, kafkabus.NewWriter(bus))
	for _, id := range ids {
		if e := reader.WaitFor(func(event.Event) bool { return true }, 10*time.Second); e.ID != id {
			t.Fatalf("got %s want %s", e.ID, id)
		}
	}
}

func TestOnlyOneRelayPublishes(t *testing.T) {
	t.Parallel()
	pool, bus, topic := setup(t)
	reader := kafkatest.Follow(t, bus, topic)
	stopA := run(t, pool, kafkabus.NewWriter(bus))
	stopB := run(t, pool, kafkabus.NewWriter(bus))
	var ids []string
	for i := range 10 {
		ids = append(ids, write(t, pool, topic, fmt.Sprintf("cus_%d", i%3), 10, true)...)
	}
	got := map[string]int{}
	for range ids {
		got[reader.WaitFor(func(event.Event) bool { return true }, 10*time.Second).ID]++
	}
	// Once every row is marked published and the two relays are stopped,
	// they have handed Kafka all they ever will (stopping one between its
	// publish and its mark would publish again: at least once); a third
	// relay then publishes a barrier per key, behind any second copy.
	eventually.Value(t, 10*time.Second, "every row marked published", func() (int, bool) {
		n := unpublished(t, pool)
		return n, n == 0
	})
	stopA()
	stopB()
	run(t, pool, kafkabus.NewWriter(bus))
	for _, e := range barrier(t, pool, topic, reader, "cus_0", "cus_1", "cus_2") {
		got[e.ID]++
	}
	for _, id := range ids {
		if got[id] != 1 {
			t.Fatalf("event %s published %d times", id, got[id])
		}
	}
}

// recording is a Publisher that reports the event ids of every attempt.
type recording struct {
	w     *kafka.Writer
	calls chan []string
}

func (r *recording) WriteMessages(ctx context.Context, msgs ...kafka.Message) error {
	err := r.w.WriteMessages(ctx, msgs...)
	var ids []string
	for _, m := range msgs {
		for _, h := range m.Headers {
			if h.Key == "event-id" {
				ids = append(ids, string(h.Value))
			}
		}
	}
	select {
	case r.calls <- ids:
	default:
	}
	return err
}
