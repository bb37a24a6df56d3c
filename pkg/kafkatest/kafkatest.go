// Package kafkatest points a test at the real Kafka broker (the local kfake
// broker under make test) with a topic prefix of its own, and reads events
// back from topics.
package kafkatest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/kafkabus"
)

// Brokers returns the test broker list.
func Brokers() []string {
	if b := os.Getenv("KYC_TEST_KAFKA_BROKERS"); b != "" {
		return strings.Split(b, ",")
	}
	return []string{"127.0.0.1:9092"}
}

// Config returns a bus config with a prefix unique to this test; the
// test's topics are deleted at cleanup.
func Config(t testing.TB) kafkabus.Config {
	t.Helper()
	c, err := NewConfig(context.Background())
	if err != nil {
		t.Fatalf("kafkatest: %v", err)
	}
	t.Cleanup(func() { DeleteTopics(c) })
	return c
}

// NewConfig checks the broker and returns a config with a fresh prefix;
// call DeleteTopics when done.
func NewConfig(ctx context.Context) (kafkabus.Config, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := kafkabus.Ping(ctx, Brokers()); err != nil {
		return kafkabus.Config{}, fmt.Errorf("cannot reach Kafka at %v (run `make test`, which starts it): %w", Brokers(), err)
	}
	var b [5]byte
	_, _ = rand.Read(b[:])
	return kafkabus.Config{Brokers: Brokers(), TopicPrefix: "t" + hex.EncodeToString(b[:]) + ".", Partitions: 3, Replication: 1}, nil
}

// DeleteTopics removes every topic with the config's prefix.
func DeleteTopics(c kafkabus.Config) {
	conn, err := kafka.Dial("tcp", c.Brokers[0])
	if err != nil {
		return
	}
	defer conn.Close()
	parts, err := conn.ReadPartitions()
	if err != nil {
		return
	}
	seen := map[string]bool{}
	var topics []string
	for _, p := range parts {
		if strings.HasPrefix(p.Topic, c.TopicPrefix) && !seen[p.Topic] {
			seen[p.Topic] = true
			topics = append(topics, p.Topic)
		}
	}
	if len(topics) > 0 {
		_ = conn.DeleteTopics(topics...)
	}
}

// Reader follows every partition of a topic from the beginning.
type Reader struct {
	t      testing.TB
	msgs   chan event.Event
	cancel context.CancelFunc
}

// Follow starts reading topic (its full name) from the first offset.
func Follow(t testing.TB, c kafkabus.Config, topic string) *Reader {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	if err := kafkabus.EnsureTopics(ctx, c, topic); err != nil {
		cancel()
		t.Fatalf("kafkatest: ensure topic: %v", err)
	}
	parts, err := kafkabus.Partitions(ctx, c.Brokers, topic)
	if err != nil {
		cancel()
		t.Fatalf("kafkatest: partitions: %v", err)
	}
	r := &Reader{t: t, msgs: make(chan event.Event, 1024), cancel: cancel}
	for _, p := range parts {
		kr := kafka.NewReader(kafka.ReaderConfig{Brokers: c.Brokers, Topic: topic, Partition: p, MinBytes: 1, MaxBytes: 1 << 20, MaxWait: 100 * time.Millisecond})
		go func() {
			defer kr.Close()
			for {
				m, err := kr.ReadMessage(ctx)
				if err != nil {
					return
				}
				if e, err := event.Decode(m.Value); err == nil {
					select {
					case r.msgs <- e:
					case <-ctx.Done():
						return
					}
				}
			}
		}()
	}
	t.Cleanup(cancel)
	return r
}

// WaitFor returns the first event matching pred, failing the test after
// timeout.
func (r *Reader) WaitFor(pred func(event.Event) bool, timeout time.Duration) event.Event {
	r.t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case e := <-r.msgs:
			if pred(e) {
				return e
			}
		case <-deadline:
			r.t.Fatalf("kafkatest: no matching event within %s", timeout)
			return event.Event{}
		}
	}
}

// Collect gathers every event that arrives within d.
func (r *Reader) Collect(d time.Duration) []event.Event {
	var out []event.Event
	deadline := time.After(d)
	for {
		select {
		case e := <-r.msgs:
			out = append(out, e)
		case <-deadline:
			return out
		}
	}
}
