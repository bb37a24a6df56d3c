package inbox_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/segmentio/kafka-go"

	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/pkg/kafkabus"
	"github.com/kycfield/kyc/pkg/kafkatest"
	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/pkg/pgtest"
)

func TestRedeliveriesApplyOnceAndFailuresAreRetried(t *testing.T) {
	t.Parallel()
	pool, _ := pgtest.NewDB(t, inbox.Migration())
	if _, err := pool.Exec(context.Background(), `CREATE TABLE effects (event_id text, n int)`); err != nil {
		t.Fatal(err)
	}
	bus := kafkatest.Config(t)
	topic := bus.Topic("in")
	if err := kafkabus.EnsureTopics(context.Background(), bus, topic); err != nil {
		t.Fatal(err)
	}
	var failures atomic.Int32
	failures.Store(2)
	h := func(ctx context.Context, tx pgx.Tx, e event.Event) error {
		if e.Type == "flaky" && failures.Add(-1) >= 0 {
			return errors.New("transient")
		}
		if e.Type == "poison" {
			return inbox.Permanent(errors.New("cannot apply"))
		}
		_, err := tx.Exec(ctx, `INSERT INTO effects VALUES ($1, 1)`, e.ID)
		return err
	}
	r := kafkabus.NewGroupReader(bus, bus.TopicPrefix+"g", topic)
	defer r.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = inbox.New("g", r, pool, logging.Discard(), h).Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	w := kafkabus.NewWriter(bus)
	defer w.Close()
	send := func(e event.Event) {
		b, _ := json.Marshal(e)
		if err := w.WriteMessages(context.Background(), kafka.Message{Topic: topic, Key: []byte("k"), Value: b}); err != nil {
			t.Fatal(err)
		}
	}
	a, _ := event.New("ok", "org", "test", nil)
	f, _ := event.New("flaky", "org", "test", nil)
	p, _ := event.New("poison", "org", "test", nil)
	last, _ := event.New("ok", "org", "test", nil)
	send(a)
	send(a) // duplicate delivery
	send(f)
	send(p)
	_ = w.WriteMessages(context.Background(), kafka.Message{Topic: topic, Key: []byte("k"), Value: []byte("not json")})
	send(last)
	deadline := time.Now().Add(30 * time.Second)
	for {
		var n int
		_ = pool.QueryRow(context.Background(), `SELECT count(*) FROM effects WHERE event_id = $1`, last.ID).Scan(&n)
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("consumer did not get past the poison messages")
		}
		time.Sleep(100 * time.Millisecond)
	}
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
}
