package inbox

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/segmentio/kafka-go"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/kycfield/kyc/pkg/event"
)

// WithBatch makes Run apply up to n events that are already waiting in
// one transaction: one commit, hence one WAL flush, instead of n. If any
// event of the batch fails, permanently or not, the batch is rolled back
// and its events are applied one by one, as without batching (a poison
// event is rare; savepoints around every event would cost two round trips
// each). Consumers that must keep up with a busy topic (the webhook
// schedule) use it.
func (c *Consumer) WithBatch(n int) *Consumer {
	c.batch = n
	return c
}

// gather returns first and whatever else the reader already holds, up to
// the batch size, without waiting for more.
func (c *Consumer) gather(ctx context.Context, first kafka.Message) []kafka.Message {
	msgs := []kafka.Message{first}
	for len(msgs) < c.batch {
		wctx, cancel := context.WithTimeout(ctx, time.Millisecond)
		m, err := c.reader.FetchMessage(wctx)
		cancel()
		if err != nil {
			break
		}
		msgs = append(msgs, m)
	}
	return msgs
}

// processBatch applies msgs in one transaction, or one by one when that
// fails, under hand (see process), each event in its consumer span. It
// returns false only when it gave up because ctx ended.
func (c *Consumer) processBatch(ctx, hand context.Context, msgs []kafka.Message) bool {
	type item struct {
		ctx context.Context
		e   event.Event
	}
	items := make([]item, 0, len(msgs))
	spans := make([]trace.Span, 0, len(msgs))
	for _, m := range msgs {
		e, err := event.Decode(m.Value)
		if err != nil {
			c.log.Error("skipping undecodable event", "consumer", c.name, "topic", m.Topic, "offset", m.Offset, "err", err)
			continue
		}
		if !c.wants(e) {
			continue
		}
		ictx, span := c.consumerSpan(hand, m)
		spans = append(spans, span)
		items = append(items, item{ictx, e})
	}
	if len(items) == 0 {
		return true
	}
	err := pgx.BeginFunc(hand, c.pool, func(tx pgx.Tx) error {
		for _, it := range items {
			if err := c.applyIn(it.ctx, tx, it.e); err != nil {
				return err
			}
		}
		return nil
	})
	for _, s := range spans {
		if err != nil {
			s.SetStatus(codes.Error, "batch rolled back")
		}
		s.End()
	}
	if err == nil {
		return true
	}
	if ctx.Err() != nil {
		return false
	}
	c.log.Warn("batch failed; applying its events one by one", "consumer", c.name, "events", len(items), "err", err)
	for _, m := range msgs {
		if !c.process(ctx, hand, m) {
			return false
		}
	}
	return true
}
