package kafkabus_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/kycfield/kyc/pkg/kafkabus"
	"github.com/kycfield/kyc/pkg/kafkatest"
)

// An idle reader waits at the broker for up to fetchWait (10 s), yet a
// message published meanwhile arrives at once, and Close does not wait
// for the pending fetch to time out (kafka-go alone would).
func TestIdleGroupReaderIsPromptBothWays(t *testing.T) {
	t.Parallel()
	c := kafkatest.Config(t)
	topic := c.Topic("idle")
	ctx := context.Background()
	if err := kafkabus.EnsureTopics(ctx, c, topic); err != nil {
		t.Fatal(err)
	}
	r := kafkabus.NewGroupReader(c, c.TopicPrefix+"idle-group", topic)
	got := make(chan time.Time, 2)
	go func() {
		for {
			if _, err := r.FetchMessage(ctx); err != nil {
				return
			}
			got <- time.Now()
		}
	}()
	// Long enough for the group to form and every partition's fetch to
	// be waiting at the broker.
	time.Sleep(3 * time.Second)
	w := kafkabus.NewWriter(c)
	defer w.Close()
	sent := time.Now()
	if err := w.WriteMessages(ctx, kafka.Message{Topic: topic, Key: []byte("k"), Value: []byte("v")}); err != nil {
		t.Fatal(err)
	}
	select {
	case at := <-got:
		if d := at.Sub(sent); d > time.Second {
			t.Errorf("message arrived %s after it was published; want the waiting fetch to return at once", d)
		}
	case <-time.After(8 * time.Second):
		t.Fatal("message not delivered within 8 s")
	}
	time.Sleep(500 * time.Millisecond) // a new fetch is waiting again
	start := time.Now()
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Close took %s; want it not to wait for the pending fetch", d)
	}
}

// The broadcast readers (no group) close promptly too.
func TestIdleBroadcastClosesPromptly(t *testing.T) {
	t.Parallel()
	c := kafkatest.Config(t)
	topic := c.Topic("bcast")
	ctx, cancel := context.WithCancel(context.Background())
	if err := kafkabus.EnsureTopics(ctx, c, topic); err != nil {
		t.Fatal(err)
	}
	b, err := kafkabus.NewBroadcast(ctx, c, topic, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { b.Run(ctx, func(kafka.Message) {}); close(done) }()
	time.Sleep(1500 * time.Millisecond)
	start := time.Now()
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("broadcast still running 5 s after its context ended")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("broadcast took %s to stop; want it not to wait for the pending fetches", d)
	}
}
