package kafkabus

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/kycfield/kyc/pkg/backoff"
)

// Broadcast delivers every message published to a topic after it was
// created to this process, whatever other instances do: one partition
// reader per partition, no consumer group and no commits. It suits cache
// invalidation, where each instance must see every event and a process that
// starts with an empty cache needs no history.
type Broadcast struct {
	readers []*kafka.Reader
	topic   string
	log     *slog.Logger
}

// NewBroadcast pins the current end of every partition of topic, so that
// nothing published after it returns is missed.
func NewBroadcast(ctx context.Context, c Config, topic string, log *slog.Logger) (*Broadcast, error) {
	parts, err := Partitions(ctx, c.Brokers, topic)
	if err != nil {
		return nil, err
	}
	b := &Broadcast{topic: topic, log: log}
	for _, p := range parts {
		conn, err := (&kafka.Dialer{Timeout: 5 * time.Second}).DialLeader(ctx, "tcp", c.Brokers[0], topic, p)
		if err != nil {
			b.Close()
			return nil, fmt.Errorf("kafkabus: dial leader %s/%d: %w", topic, p, err)
		}
		last, err := conn.ReadLastOffset()
		conn.Close()
		if err != nil {
			b.Close()
			return nil, fmt.Errorf("kafkabus: last offset %s/%d: %w", topic, p, err)
		}
		r := kafka.NewReader(kafka.ReaderConfig{
			Brokers: c.Brokers, Topic: topic, Partition: p, Dialer: dialer(),
			MinBytes: 1, MaxBytes: 1 << 20, MaxWait: fetchWait,
		})
		if err := r.SetOffset(last); err != nil {
			r.Close()
			b.Close()
			return nil, err
		}
		b.readers = append(b.readers, r)
	}
	return b, nil
}

// Run calls handle for every message until ctx ends, then closes the readers.
func (b *Broadcast) Run(ctx context.Context, handle func(kafka.Message)) {
	var wg sync.WaitGroup
	for _, r := range b.readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				m, err := r.ReadMessage(ctx)
				if err != nil {
					if ctx.Err() != nil || errors.Is(err, context.Canceled) || errors.Is(err, kafka.ErrGroupClosed) {
						return
					}
					b.log.Warn("broadcast read failed", "topic", b.topic, "err", err)
					if !backoff.Sleep(ctx, time.Second) {
						return
					}
					continue
				}
				handle(m)
			}
		}()
	}
	wg.Wait()
	b.Close()
}

// Close releases the readers.
func (b *Broadcast) Close() {
	for _, r := range b.readers {
		_ = r.Close()
	}
}
