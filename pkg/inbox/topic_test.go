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
// none). The writer has a transport of its own: kafka-go's shared default
// one caches the broker's metadata for up to 6 s, so a topic created after
// another test's refresh stayed unknown to it for longer than a 5 s retry
// (a CI failure: "Unknown Topic Or Partition"). Retries still cover a
// broker slow to show a new topic, for longer than that cache lives.
func newTopic(t *testing.T, name string) (kafkabus.Config, string, func(kafka.Message)) {
	t.Helper()
	bus := kafkatest.Config(t)
	topic := bus.Topic(name)
	if err := kafkabus.EnsureTopics(context.Background(), bus, topic); err != nil {
		t.Fatal(err)
	}
	tr := &kafka.Transport{}
	w := kafkabus.NewWriter(bus)
	w.Transport = tr
	t.Cleanup(func() { _ = w.Close(); tr.CloseIdleConnections() })
	publish := func(m kafka.Message) {
		t.Helper()
		m.Topic = topic
		if m.Key == nil {
			m.Key = []byte("k")
		}
		var err error
		for range 150 {
			if err = w.WriteMessages(context.Background(), m); err == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Fatal(err)
	}
	return bus, topic, publish
}
