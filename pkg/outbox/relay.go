package outbox

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/segmentio/kafka-go"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/kycfield/kyc/pkg/kafkabus"
	"github.com/kycfield/kyc/pkg/pgdb"
	"github.com/kycfield/kyc/pkg/telemetry"
)

// Publisher is the part of kafka.Writer the relay needs.
type Publisher interface {
	WriteMessages(ctx context.Context, msgs ...kafka.Message) error
}

// Relay publishes committed outbox rows in id order. Only one relay per
// database publishes at a time (a session advisory lock), so events of one
// key leave in the order their transactions wrote them; other replicas
// stand by and take over when the holder's session ends.
type Relay struct {
	pool      *pgxpool.Pool
	pub       Publisher
	log       *slog.Logger
	batch     int
	poll      time.Duration
	retention time.Duration
	tracer    trace.Tracer
}

// NewRelay returns a relay over pool publishing with pub.
func NewRelay(pool *pgxpool.Pool, pub Publisher, log *slog.Logger) *Relay {
	return &Relay{pool: pool, pub: pub, log: log, batch: 200, poll: time.Second, retention: 7 * 24 * time.Hour,
		tracer: noop.NewTracerProvider().Tracer("")}
}

// WithTracing makes the relay publish each message in a producer span,
// child of the trace its row was written in, and put that span's context
// in the message's traceparent header for the consumers.
func (r *Relay) WithTracing(tp trace.TracerProvider) *Relay {
	r.tracer = tp.Tracer("github.com/kycfield/kyc/pkg/outbox")
	return r
}

// relayLockKey is the advisory lock id electing the publishing relay.
const relayLockKey = 0x6b79635f6f7574 // "kyc_out"

// Run publishes until ctx ends. Failures are logged and retried.
func (r *Relay) Run(ctx context.Context) error {
	for ctx.Err() == nil {
		if err := r.lead(ctx); err != nil && ctx.Err() == nil {
			r.log.Warn("outbox relay restarting", "err", err)
			sleep(ctx, 2*time.Second)
		}
	}
	return nil
}

// lead holds the election lock on a dedicated connection and relays while
// it holds it.
func (r *Relay) lead(ctx context.Context) error {
	l, err := pgdb.Listen(ctx, r.pool, notifyChannel)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	defer l.Close()
	for {
		var got bool
		if err := l.Conn().QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, relayLockKey).Scan(&got); err != nil {
			return fmt.Errorf("lock: %w", err)
		}
		if got {
			break
		}
		if !sleep(ctx, 2*time.Second) {
			return nil
		}
	}
	lastPrune := time.Time{}
	for ctx.Err() == nil {
		n, err := r.drain(ctx)
		if err != nil {
			return err
		}
		if time.Since(lastPrune) > time.Hour {
			r.prune(ctx)
			lastPrune = time.Now()
		}
		if n == r.batch {
			continue
		}
		if err := l.Wait(ctx, r.poll); err != nil && ctx.Err() == nil {
			return fmt.Errorf("wait: %w", err)
		}
	}
	return nil
}

// drain publishes one batch of unpublished rows and marks them sent.
func (r *Relay) drain(ctx context.Context) (int, error) {
	n := 0
	err := pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT id, event_id, event_type, topic, msg_key, payload::text, traceparent
			FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`, r.batch)
		if err != nil {
			return err
		}
		var ids []int64
		var msgs []kafka.Message
		var spans []trace.Span
		defer func() {
			for _, s := range spans {
				s.End()
			}
		}()
		for rows.Next() {
			var id int64
			var eventID, typ, topic, key, payload, traceparent string
			if err := rows.Scan(&id, &eventID, &typ, &topic, &key, &payload, &traceparent); err != nil {
				return err
			}
			ids = append(ids, id)
			m := kafka.Message{
				Topic: topic, Key: []byte(key), Value: []byte(payload),
				Headers: []kafka.Header{{Key: "event-id", Value: []byte(eventID)}, {Key: "event-type", Value: []byte(typ)}},
			}
			spans = append(spans, r.producerSpan(ctx, traceparent, &m, eventID, typ))
			msgs = append(msgs, m)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if len(msgs) == 0 {
			return nil
		}
		if err := r.pub.WriteMessages(ctx, msgs...); err != nil {
			for _, s := range spans {
				s.SetStatus(codes.Error, "publish failed")
			}
			return fmt.Errorf("publish: %w", err)
		}
		n = len(msgs)
		_, err = tx.Exec(ctx, `UPDATE outbox SET published_at = now() WHERE id = ANY($1)`, ids)
		return err
	})
	return n, err
}

// producerSpan starts m's "publish" span in the trace of the row's
// transaction and writes its context into m's headers. A message without
// a trace (tracing off, or a row from before) gets no header.
func (r *Relay) producerSpan(ctx context.Context, traceparent string, m *kafka.Message, eventID, typ string) trace.Span {
	pctx, span := r.tracer.Start(telemetry.WithTraceparent(ctx, traceparent), "publish "+m.Topic,
		trace.WithSpanKind(trace.SpanKindProducer),
		trace.WithAttributes(attribute.String("messaging.system", "kafka"), attribute.String("messaging.operation.type", "publish"),
			attribute.String("messaging.destination.name", m.Topic), attribute.String("messaging.message.id", eventID),
			attribute.String("kyc.event.type", typ)))
	telemetry.Propagator().Inject(pctx, kafkabus.Headers{H: &m.Headers})
	return span
}

func (r *Relay) prune(ctx context.Context) {
	_, err := r.pool.Exec(ctx, `DELETE FROM outbox WHERE published_at < now() - make_interval(secs => $1)`, r.retention.Seconds())
	if err != nil && ctx.Err() == nil {
		r.log.Warn("outbox prune failed", "err", err)
	}
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
