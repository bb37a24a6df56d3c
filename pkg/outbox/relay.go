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

	"github.com/kycfield/kyc/pkg/backoff"
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
	hooks     relayHooks
}

// NewRelay returns a relay over pool publishing with pub.
func NewRelay(pool *pgxpool.Pool, pub Publisher, log *slog.Logger) *Relay {
	return &Relay{pool: pool, pub: pub, log: log, batch: 200, poll: safetyPoll, retention: 7 * 24 * time.Hour,
		tracer: noop.NewTracerProvider().Tracer("")}
}

// WithTracing makes the relay publish each message in a producer span,
// child of the trace its row was written in, and put that span's context
// in the message's traceparent header for the consumers.
func (r *Relay) WithTracing(tp trace.TracerProvider) *Relay {
	r.tracer = tp.Tracer("github.com/kycfield/kyc/pkg/outbox")
	return r
}

// safetyPoll is how often an idle relay looks without being woken. Every
// row is written by Add, whose transaction NOTIFYs an idle relay at
// commit (relay_idle.go says why a busy one needs no NOTIFY), and a relay
// LISTENs before its first round, so a row is never left for the poll to
// find: after a lost connection the new session drains first. The poll
// is only a net for rows written some other way (by hand, a data
// migration). At one second it was six transactions a second in an idle
// make run (one per service database).
const safetyPoll = 30 * time.Second

// relayLockKey is the advisory lock id electing the publishing relay.
const relayLockKey = 0x6b79635f6f7574 // "kyc_out"

// Run publishes until ctx ends. Failures are logged and retried.
func (r *Relay) Run(ctx context.Context) error {
	var lastPrune time.Time
	var s relaySession
	return pgdb.Worker{
		Pool: r.pool, Channel: notifyChannel, Poll: r.poll, Restart: 2 * time.Second, Log: r.log, Name: "outbox relay",
		Start: func(ctx context.Context, conn *pgxpool.Conn) error {
			lastPrune = time.Time{}
			s = relaySession{conn: conn} // busy until it has gone idle itself
			return elect(ctx, conn)
		},
		Work: func(ctx context.Context) (bool, error) {
			more, err := r.round(ctx, &s)
			if err != nil {
				return false, err
			}
			if time.Since(lastPrune) > time.Hour {
				r.prune(ctx)
				lastPrune = time.Now()
			}
			return more, nil
		},
	}.Run(ctx)
}

// elect waits until conn holds the election lock (a session lock: it is
// held while the relay listens on conn), or ctx ends.
func elect(ctx context.Context, conn *pgxpool.Conn) error {
	for {
		var got bool
		if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, relayLockKey).Scan(&got); err != nil {
			return fmt.Errorf("lock: %w", err)
		}
		if got || !backoff.Sleep(ctx, 2*time.Second) {
			return nil
		}
	}
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
