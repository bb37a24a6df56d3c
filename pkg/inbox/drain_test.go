package inbox_test

import (
	"context"
	"encoding/json"
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

// A consumer told to stop (SIGTERM) while it applies an event finishes
// that event and commits it: the next member of its group does not get it
// again, it goes on from the next one.
func TestStoppingConsumerFinishesTheEventInHand(t *testing.T) {
	t.Parallel()
	bus, topic, publish := newTopic(t, "drain")
	send := func(e event.Event) {
		b, _ := json.Marshal(e)
		publish(kafka.Message{Value: b})
	}
	pool, _ := pgtest.NewDB(t, inbox.Migration())
	if _, err := pool.Exec(context.Background(), `CREATE TABLE effects (event_id text)`); err != nil {
		t.Fatal(err)
	}
	inHand := make(chan struct{}, 1)
	release := make(chan struct{})
	calls := map[string]*atomic.Int32{}
	first, _ := event.New("slow", "org", "test", nil)
	second, _ := event.New("next", "org", "test", nil)
	for _, e := range []event.Event{first, second} {
		calls[e.ID] = &atomic.Int32{}
	}
	h := func(ctx context.Context, tx pgx.Tx, e event.Event) error {
		calls[e.ID].Add(1)
		if e.ID == first.ID {
			select {
			case inHand <- struct{}{}:
			default:
			}
			<-release
		}
		_, err := tx.Exec(ctx, `INSERT INTO effects VALUES ($1)`, e.ID)
		return err
	}
	group := bus.TopicPrefix + "drain"
	run := func(ctx context.Context) chan struct{} {
		r := kafkabus.NewGroupReader(bus, group, topic)
		done := make(chan struct{})
		go func() {
			defer close(done)
			defer r.Close()
			_ = inbox.New(group, r, pool, logging.Discard(), h).Run(ctx)
		}()
		return done
	}

	send(first)
	ctx, stop := context.WithCancel(context.Background())
	done := run(ctx)
	select {
	case <-inHand:
	case <-time.After(30 * time.Second):
		t.Fatal("the consumer never got the event")
	}
	stop() // SIGTERM while the event is being applied
	time.AfterFunc(300*time.Millisecond, func() { close(release) })
	<-done

	send(second)
	ctx2, stop2 := context.WithCancel(context.Background())
	done2 := run(ctx2)
	defer func() { stop2(); <-done2 }()
	eventually.True(t, 30*time.Second, "the next member to get the next event", func() bool { return calls[second.ID].Load() > 0 })
	var n int
	_ = pool.QueryRow(context.Background(), `SELECT count(*) FROM effects WHERE event_id = $1`, first.ID).Scan(&n)
	if n != 1 || calls[first.ID].Load() != 1 {
		t.Fatalf("the event in hand: applied %d times, handled %d times; want 1 and 1 (finished and committed, not redone)", n, calls[first.ID].Load())
	}
}
