// Package inbox is the idempotent Kafka consumer: each event's effect and
// the record that the event was processed commit in one transaction, and
// the offset is committed only afterwards. A redelivery (after a crash, a
// rebalance or a producer retry) finds the record and changes nothing.
//
// One convention for every consumer: a Handler decodes the producer's
// payload into the consumer's own struct and maps it to a call of a
// domain use case, passing the inbox transaction adapted to the domain's
// Tx port by the repository (customer: svc.ApplyAddressUpdate(ctx,
// within(tx), ...) with within = store.Within). Undecodable or invalid
// input is returned wrapped in Permanent (logged and skipped); any other
// error is returned as is (rolled back and retried).
package inbox

import (
	"context"
	"embed"
	"errors"
	"io/fs"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/segmentio/kafka-go"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/kycfield/kyc/pkg/backoff"
	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/kafkabus"
	"github.com/kycfield/kyc/pkg/pgdb"
	"github.com/kycfield/kyc/pkg/server"
	"github.com/kycfield/kyc/pkg/telemetry"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Migration returns the processed-events table's migrations.
func Migration() pgdb.Migration {
	sub, _ := fs.Sub(migrations, "migrations")
	return pgdb.Migration{VersionTable: "inbox_schema_version", Files: sub}
}

// Handler applies one event inside tx. Returning an error rolls the
// transaction back and retries the event; wrap it with Permanent to log it
// and move on instead.
type Handler func(ctx context.Context, tx pgx.Tx, e event.Event) error

type permanentError struct{ error }

func (p permanentError) Unwrap() error { return p.error }

// errNoCause stands in for a nil error given to Permanent, so that the
// event is still skipped and its log line still says why in words.
var errNoCause = errors.New("permanent failure (no cause given)")

// Permanent marks an error that retrying cannot fix (a malformed payload).
// A nil err still marks a permanent failure, with a generic cause.
func Permanent(err error) error {
	if err == nil {
		err = errNoCause
	}
	return permanentError{err}
}

// IsPermanent reports whether err was marked by Permanent.
func IsPermanent(err error) bool {
	var p permanentError
	return errors.As(err, &p)
}

// Fetcher is the part of kafka.Reader the consumer needs.
type Fetcher interface {
	FetchMessage(ctx context.Context) (kafka.Message, error)
	CommitMessages(ctx context.Context, msgs ...kafka.Message) error
}

// Consumer applies events from a reader exactly once per consumer name.
type Consumer struct {
	name   string
	reader Fetcher
	pool   *pgxpool.Pool
	handle Handler
	log    *slog.Logger
	batch  int      // events per transaction; 0 or 1: one
	only   []string // event types the handler reads; empty: every type
	skip   func(event.Event) bool
	tracer trace.Tracer
	nextMu sync.Mutex
	next   map[kafkabus.TopicPartition]int64 // the offset after the last message applied
	// batchHandle, if set, applies a batch in one call (WithBatchHandler).
	batchHandle BatchHandler
}

// New returns a consumer; name identifies it in processed_events and is
// usually the consumer group id.
func New(name string, reader Fetcher, pool *pgxpool.Pool, log *slog.Logger, h Handler) *Consumer {
	return &Consumer{name: name, reader: reader, pool: pool, handle: h, log: log, tracer: noop.NewTracerProvider().Tracer("")}
}

// WithTracing makes the consumer process each message in a consumer span,
// child of the producer span whose context the message's headers carry:
// the handler's ctx is in the producer's trace, and so is every event the
// handler writes to its own outbox.
func (c *Consumer) WithTracing(tp trace.TracerProvider) *Consumer {
	c.tracer = tp.Tracer("github.com/kycfield/kyc/pkg/inbox")
	return c
}

// consumerSpan starts m's "process" span.
func (c *Consumer) consumerSpan(ctx context.Context, m kafka.Message) (context.Context, trace.Span) {
	ctx = telemetry.Propagator().Extract(ctx, kafkabus.Headers{H: &m.Headers})
	return c.tracer.Start(ctx, "process "+m.Topic, trace.WithSpanKind(trace.SpanKindConsumer),
		trace.WithAttributes(attribute.String("messaging.system", "kafka"), attribute.String("messaging.operation.type", "process"),
			attribute.String("messaging.destination.name", m.Topic), attribute.String("messaging.consumer.group.name", c.name),
			attribute.Int("messaging.destination.partition.id", m.Partition), attribute.Int64("messaging.kafka.offset", m.Offset)))
}

// Only makes the consumer skip events of any other type before it opens a
// transaction: a topic carries every event of its producer, and recording
// an event no route reads costs a round trip and a row for nothing (most
// of a busy topic, for a consumer that reads one type of it).
func (c *Consumer) Only(types ...string) *Consumer {
	c.only = types
	return c
}

// Skip makes the consumer pass over, before it opens a transaction, the
// events for which skip is true: events its handler would apply as no
// change (billing reads every address.updated, and bills only live
// final ones). Such an event is not recorded as processed, which is
// harmless only because applying it would change nothing; nil skips none.
func (c *Consumer) Skip(skip func(event.Event) bool) *Consumer {
	c.skip = skip
	return c
}

// wants reports whether e is of a type the consumer reads and not one it
// skips.
func (c *Consumer) wants(e event.Event) bool {
	return (len(c.only) == 0 || slices.Contains(c.only, e.Type)) && (c.skip == nil || !c.skip(e))
}

// Run consumes until ctx ends.
func (c *Consumer) Run(ctx context.Context) error {
	for {
		m, err := c.reader.FetchMessage(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			c.log.Warn("consumer fetch failed", "consumer", c.name, "err", err)
			if !backoff.Sleep(ctx, time.Second) {
				return nil
			}
			continue
		}
		if !c.handleFetched(ctx, m) {
			return nil
		}
	}
}

// handleFetched applies and commits what one fetch brought. Told to stop (ctx
// ends) half way, it still finishes the attempt in hand and commits it
// (server.Hand), so that the next member of the group does not redo it;
// it only gives up retrying. It returns false when the consumer should
// stop.
func (c *Consumer) handleFetched(ctx context.Context, m kafka.Message) bool {
	hand, done := server.Hand(ctx)
	defer done()
	msgs := []kafka.Message{m}
	if c.batch > 1 {
		msgs = c.gather(ctx, m)
		if !c.processBatch(ctx, hand, msgs) {
			return false
		}
	} else if !c.process(ctx, hand, m) {
		return false
	}
	if err := c.reader.CommitMessages(hand, msgs...); err != nil && hand.Err() == nil {
		c.log.Warn("consumer commit failed", "consumer", c.name, "err", err)
	}
	c.noteApplied(msgs)
	return ctx.Err() == nil
}

// noteApplied keeps, per partition, the offset after the last message
// applied (skipped ones included: they are done with too).
func (c *Consumer) noteApplied(msgs []kafka.Message) {
	c.nextMu.Lock()
	defer c.nextMu.Unlock()
	if c.next == nil {
		c.next = map[kafkabus.TopicPartition]int64{}
	}
	for _, m := range msgs {
		c.next[kafkabus.TopicPartition{Topic: m.Topic, Partition: m.Partition}] = m.Offset + 1
	}
}

// Next is, for each partition this consumer has applied from in this
// process, the offset of the next message it will apply there: ahead of
// the group's committed offset until the commit is flushed, and behind it
// once the partition has moved to another member (kafkabus.Backlog takes
// the later of the two). It is what the consumer-lag metric counts from.
func (c *Consumer) Next() map[kafkabus.TopicPartition]int64 {
	c.nextMu.Lock()
	defer c.nextMu.Unlock()
	return maps.Clone(c.next)
}

// process applies m under hand, in its consumer span, retrying transient
// failures with backoff until ctx ends. It returns false only when it gave
// up because ctx ended.
func (c *Consumer) process(ctx, hand context.Context, m kafka.Message) bool {
	hand, span := c.consumerSpan(hand, m)
	defer span.End()
	e, err := event.Decode(m.Value)
	if err != nil {
		span.SetStatus(codes.Error, "undecodable")
		c.log.ErrorContext(ctx, "skipping undecodable event", "consumer", c.name, "topic", m.Topic, "offset", m.Offset, "err", err)
		return true
	}
	if !c.wants(e) {
		return true
	}
	pause := backoff.Backoff{Min: 100 * time.Millisecond, Max: 10 * time.Second}
	for {
		err := c.Apply(hand, e)
		if err == nil {
			return true
		}
		if IsPermanent(err) {
			span.SetStatus(codes.Error, "skipped: cannot be applied")
			c.log.ErrorContext(ctx, "skipping event that cannot be applied", "consumer", c.name, "event_id", e.ID, "type", e.Type, "err", err)
			return true
		}
		if ctx.Err() != nil {
			return false
		}
		c.log.WarnContext(ctx, "event failed; will retry", "consumer", c.name, "event_id", e.ID, "type", e.Type, "err", err)
		if !pause.Wait(ctx) {
			return false
		}
	}
}

// Apply runs the handler for e unless this consumer already processed it.
// It is exported so that tests and replays can feed events directly.
func (c *Consumer) Apply(ctx context.Context, e event.Event) error {
	return pgx.BeginFunc(ctx, c.pool, func(tx pgx.Tx) error { return c.applyIn(ctx, tx, e) })
}

// applyIn records e as processed and runs the handler in tx, unless e was
// processed already.
func (c *Consumer) applyIn(ctx context.Context, tx pgx.Tx, e event.Event) error {
	tag, err := tx.Exec(ctx, `INSERT INTO processed_events (consumer, event_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`, c.name, e.ID)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return nil
	}
	return c.handle(ctx, tx, e)
}
