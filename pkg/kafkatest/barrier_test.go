package kafkatest

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/eventually"
	"github.com/kycfield/kyc/pkg/kafkabus"
)

// A consumer that commits after handling each message has handled every
// earlier message once Barrier returns.
func TestBarrierWaitsForEveryGroupOfThePrefix(t *testing.T) {
	c := Config(t)
	topic := c.Topic("things")
	if err := kafkabus.EnsureTopics(context.Background(), c, topic); err != nil {
		t.Fatal(err)
	}
	w := kafkabus.NewWriter(c)
	defer w.Close()
	const n = 30
	for i := range n {
		e, _ := event.New("thing.happened", "org_1", "test", map[string]int{"i": i})
		raw, _ := json.Marshal(e)
		if err := w.WriteMessages(context.Background(), kafka.Message{Topic: topic, Key: []byte{byte(i)}, Value: raw}); err != nil {
			t.Fatal(err)
		}
	}
	r := kafkabus.NewGroupReader(c, c.TopicPrefix+"slow", topic)
	defer r.Close()
	var mu sync.Mutex
	handled := 0
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for {
			m, err := r.FetchMessage(ctx)
			if err != nil {
				return
			}
			var e event.Event
			_ = json.Unmarshal(m.Value, &e)
			if e.Type != BarrierType {
				time.Sleep(20 * time.Millisecond) // a slow effect
				mu.Lock()
				handled++
				mu.Unlock()
			}
			if err := r.CommitMessages(ctx, m); err != nil {
				return
			}
		}
	}()
	// The group has joined (Barrier sees only groups that have).
	eventually.True(t, time.Minute, "a first message handled", func() bool { mu.Lock(); defer mu.Unlock(); return handled > 0 })
	Barrier(t, c, topic, "org_1", time.Minute)
	mu.Lock()
	defer mu.Unlock()
	if handled != n {
		t.Fatalf("the barrier passed with %d of %d messages handled", handled, n)
	}
}
