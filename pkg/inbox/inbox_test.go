package inbox_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/segmentio/kafka-go"

	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/eventually"
	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/pkg/kafkabus"
	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/pkg/pgtest"
)

func TestRedeliveriesApplyOnceAndFailuresAreRetried(t *testing.T) {
	t.Parallel()
	bus, topic, publish := newTopic(t, "in")
	send := func(value []byte) { publish(kafka.Message{Value: value}) }
	a, _ := event.New("ok", "org", "test", nil)
	f, _ := event.New("flaky", "org", "test", nil)
	p, _ := event.New("poison", "org", "test", nil)
	last, _ := event.New("ok", "org", "test", nil)
	for _, e := range []event.Event{a, a, f, p} { // a twice: a duplicate delivery
		b, _ := json.Marshal(e)
		send(b)
	}
	send([]byte("not json"))
	b, _ := json.Marshal(last)
	send(b)
	// The same messages, read one event at a time, batch at a time, and
	// batch at a time by a batch handler, by three consumer groups.
	for _, batch := range []int{1, 16} {
		t.Run("batch "+strconv.Itoa(batch), func(t *testing.T) {
			redeliveries(t, bus, topic, batch, false, a, f, p, last)
		})
	}
	t.Run("batch handler", func(t *testing.T) {
		redeliveries(t, bus, topic, 16, true, a, f, p, last)
	})
}

// redeliveries: duplicates apply once, a transient failure is retried, a
// poison event is skipped with its partial effect undone.
// With batched, the batch goes to a batch handler applying h to each of
// its events: a batch that fails is rolled back and applied one event at
// a time, so the failing event is retried or skipped alone and the others
// are applied once each.
func redeliveries(t *testing.T, bus kafkabus.Config, topic string, batch int, batched bool, a, f, p, last event.Event) {
	pool, _ := pgtest.NewDB(t, inbox.Migration())
	if _, err := pool.Exec(context.Background(), `CREATE TABLE effects (event_id text, n int)`); err != nil {
		t.Fatal(err)
	}
	var failures atomic.Int32
	failures.Store(2)
	h := func(ctx context.Context, tx pgx.Tx, e event.Event) error {
		if e.Type == "flaky" && failures.Add(-1) >= 0 {
			return errors.New("transient")
		}
		if _, err := tx.Exec(ctx, `INSERT INTO effects VALUES ($1, 1)`, e.ID); err != nil {
			return err
		}
		if e.Type == "poison" {
			return inbox.Permanent(errors.New("cannot apply"))
		}
		return nil
	}
	var batches atomic.Int32
	var bh inbox.BatchHandler
	group := bus.TopicPrefix + "g" + strconv.Itoa(batch)
	if batched {
		group += "h"
		bh = func(ctx context.Context, tx pgx.Tx, batch []inbox.Batched) error {
			batches.Add(1)
			for _, b := range batch {
				if err := h(b.Ctx, tx, b.Event); err != nil {
					return err
				}
			}
			return nil
		}
	}
	r := kafkabus.NewGroupReader(bus, group, topic)
	defer r.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		_ = inbox.New(group, r, pool, logging.Discard(), h).WithBatch(batch).WithBatchHandler(bh).Run(ctx)
		close(done)
	}()
	defer func() { cancel(); <-done }()
	eventually.True(t, 30*time.Second, "the consumer past the poison messages", func() bool {
		var n int
		_ = pool.QueryRow(context.Background(), `SELECT count(*) FROM effects WHERE event_id = $1`, last.ID).Scan(&n)
		return n == 1
	})
	counts := map[string]int{}
	rows, _ := pool.Query(context.Background(), `SELECT event_id, count(*) FROM effects GROUP BY event_id`)
	for rows.Next() {
		var id string
		var n int
		_ = rows.Scan(&id, &n)
		counts[id] = n
	}
	if counts[a.ID] != 1 || counts[f.ID] != 1 || counts[p.ID] != 0 || len(counts) != 3 {
		t.Fatalf("effects: %v", counts)
	}
	if batched && batches.Load() == 0 {
		t.Fatal("the batch handler was never called")
	}
}

// A batch fed directly is applied once: its events already processed, and
// a second copy of one in the same batch, are not handed to the batch
// handler again, and the rest keep their order.
func TestApplyBatchHandsOnlyNewEventsInOrder(t *testing.T) {
	t.Parallel()
	pool, _ := pgtest.NewDB(t, inbox.Migration())
	var got [][]string
	bh := func(_ context.Context, _ pgx.Tx, batch []inbox.Batched) error {
		var ids []string
		for _, b := range batch {
			ids = append(ids, b.Event.ID)
		}
		got = append(got, ids)
		return nil
	}
	h := func(context.Context, pgx.Tx, event.Event) error { return errors.New("not the batch handler") }
	c := inbox.New("direct", nil, pool, logging.Discard(), h).WithBatchHandler(bh)
	var es []event.Event
	for range 4 {
		e, _ := event.New("ok", "org", "test", nil)
		es = append(es, e)
	}
	ctx := context.Background()
	if err := c.ApplyBatch(ctx, es[:2]); err != nil {
		t.Fatal(err)
	}
	// es[1] again (processed), es[2] twice in the batch, es[0] again.
	if err := c.ApplyBatch(ctx, []event.Event{es[1], es[2], es[3], es[2], es[0]}); err != nil {
		t.Fatal(err)
	}
	if err := c.ApplyBatch(ctx, es); err != nil { // all processed: no call
		t.Fatal(err)
	}
	want := [][]string{{es[0].ID, es[1].ID}, {es[2].ID, es[3].ID}}
	if len(got) != len(want) || !slices.Equal(got[0], want[0]) || !slices.Equal(got[1], want[1]) {
		t.Fatalf("batch handler got %v, want %v", got, want)
	}
}

// A topic carries every event of its producer; a consumer that reads some
// types of it, or skips some events, neither runs its handler for the
// others nor records them.
func TestEventsNotReadOrSkippedAreSkippedBeforeTheDatabase(t *testing.T) {
	t.Parallel()
	bus, topic, publish := newTopic(t, "only")
	var want []event.Event
	// An event of a type read but in an environment skipped ("live" here)
	// is passed over like one of a type not read.
	for _, typ := range []string{"other", "read", "other", "read live", "other", "last"} {
		env := "test"
		if typ == "read live" {
			typ, env = "read", "live"
		}
		e, _ := event.New(typ, "org", env, nil)
		b, _ := json.Marshal(e)
		publish(kafka.Message{Value: b})
		if typ != "other" && env == "test" {
			want = append(want, e)
		}
	}
	for _, batch := range []int{1, 16} {
		t.Run("batch "+strconv.Itoa(batch), func(t *testing.T) {
			pool, _ := pgtest.NewDB(t, inbox.Migration())
			var seen atomic.Int32
			var last atomic.Bool
			h := func(ctx context.Context, tx pgx.Tx, e event.Event) error {
				seen.Add(1)
				if e.Type == "last" {
					last.Store(true)
				}
				return nil
			}
			group := bus.TopicPrefix + "only" + strconv.Itoa(batch)
			r := kafkabus.NewGroupReader(bus, group, topic)
			defer r.Close()
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() {
				_ = inbox.New(group, r, pool, logging.Discard(), h).Only("read", "last").
					Skip(func(e event.Event) bool { return e.Environment == "live" }).WithBatch(batch).Run(ctx)
				close(done)
			}()
			defer func() { cancel(); <-done }()
			eventually.True(t, 30*time.Second, "the last event applied", last.Load)
			var recorded int
			if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM processed_events`).Scan(&recorded); err != nil {
				t.Fatal(err)
			}
			if seen.Load() != int32(len(want)) || recorded != len(want) {
				t.Fatalf("handler ran %d times and %d events were recorded; want %d of each", seen.Load(), recorded, len(want))
			}
		})
	}
}
