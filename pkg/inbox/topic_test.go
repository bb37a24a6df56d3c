package inbox_test

import (
	"context"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/kycfield/kyc/pkg/kafkabus"
	"github.com/kycfield/kyc/pkg/kafkatest"
)

// newTopic creates a topic of the test's own and returns the bus, the
// topic, and publish, which writes one message to it (key "k" when it has
// none), retrying while the writer's metadata does not know the new topic
// yet.
func newTopic(t *testing.T, name string) (kafkabus.Config, string, func(kafka.Message)) {
	t.Helper()
	bus := kafkatest.Config(t)
	topic := bus.Topic(name)
	if err := kafkabus.EnsureTopics(context.Background(), bus, topic); err != nil {
		t.Fatal(err)
	}
	w := kafkabus.NewWriter(bus)
	t.Cleanup(func() { _ = w.Close() })
	publish := func(m kafka.Message) {
		t.Helper()
		m.Topic = topic
		if m.Key == nil {
			m.Key = []byte("k")
		}
		var err error
		for range 50 {
			if err = w.WriteMessages(context.Background(), m); err == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Fatal(err)
	}
	return bus, topic, publish
}
