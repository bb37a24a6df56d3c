package inbox

import (
	"context"
	"slices"
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

// Batched is one event of a batch, with the context of its consumer span:
// what the handler writes for it (a traceparent) belongs to that trace.
type Batched struct {
	Ctx   context.Context
	Event event.Event
}

// BatchHandler applies, inside tx, the events of a batch that this
// consumer has not processed yet, in the order they were fetched (so one
// key's events in their partition's order). It lets a handler read and
// write for the whole batch in a few round trips instead of a few per
// event. Returning an error rolls the whole batch back, and the consumer
// then applies its events one at a time with the Handler: so a batch
// handler and the Handler must have the same effect, event for event.
type BatchHandler func(ctx context.Context, tx pgx.Tx, batch []Batched) error

// WithBatchHandler makes batches (WithBatch) go to h, in one call per
// transaction, with the events already processed left out; nil keeps one
// Handler call per event.
func (c *Consumer) WithBatchHandler(h BatchHandler) *Consumer {
	c.batchHandle = h
	return c
}

// applyBatchIn records the batch's events as processed, in one statement,
// and hands those not processed before to the batch handler, each once
// (a producer's retry can put one event twice in a batch).
func (c *Consumer) applyBatchIn(ctx context.Context, tx pgx.Tx, batch []Batched) error {
	ids := make([]string, 0, len(batch))
	for _, b := range batch {
		if !slices.Contains(ids, b.Event.ID) {
			ids = append(ids, b.Event.ID)
		}
	}
	rows, err := tx.Query(ctx, `INSERT INTO processed_events (consumer, event_id) SELECT $1, unnest($2::text[])
		ON CONFLICT DO NOTHING RETURNING event_id`, c.name, ids)
	if err != nil {
		return err
	}
	fresh, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	todo := make([]Batched, 0, len(fresh))
	for _, b := range batch {
		if i := slices.Index(fresh, b.Event.ID); i >= 0 {
			todo = append(todo, b)
			fresh[i] = "" // a second copy in the batch is not applied again
		}
	}
	if len(todo) == 0 {
		return nil
	}
	return c.batchHandle(ctx, tx, todo)
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
	batch := make([]Batched, 0, len(msgs))
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
		batch = append(batch, Batched{Ctx: ictx, Event: e})
	}
	if len(batch) == 0 {
		return true
	}
	err := c.applyBatch(hand, batch)
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
	c.log.Warn("batch failed; applying its events one by one", "consumer", c.name, "events", len(batch), "err", err)
	for _, m := range msgs {
		if !c.process(ctx, hand, m) {
			return false
		}
	}
	return true
}

// ApplyBatch applies es as one batch, in one transaction, as Run applies
// what one fetch brought (but without falling back to one event at a
// time: an error rolls the whole batch back and is returned). Events
// already processed are left out. It is exported so that tests and
// replays can feed batches directly.
func (c *Consumer) ApplyBatch(ctx context.Context, es []event.Event) error {
	batch := make([]Batched, len(es))
	for i, e := range es {
		batch[i] = Batched{Ctx: ctx, Event: e}
	}
	return c.applyBatch(ctx, batch)
}

// applyBatch applies batch in one transaction: with the batch handler if
// there is one, else with the Handler for each event in turn.
func (c *Consumer) applyBatch(ctx context.Context, batch []Batched) error {
	return pgx.BeginFunc(ctx, c.pool, func(tx pgx.Tx) error {
		if c.batchHandle != nil {
			return c.applyBatchIn(ctx, tx, batch)
		}
		for _, b := range batch {
			if err := c.applyIn(b.Ctx, tx, b.Event); err != nil {
				return err
			}
		}
		return nil
	})
}
