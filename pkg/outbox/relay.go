package outbox

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/segmentio/kafka-go"

	"github.com/kycfield/kyc/pkg/pgdb"
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
}

// NewRelay returns a relay over pool publishing with pub.
func NewRelay(pool *pgxpool.Pool, pub Publisher, log *slog.Logger) *Relay {
	return &Relay{pool: pool, pub: pub, log: log, batch: 200, poll: time.Second, retention: 7 * 24 * time.Hour}
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
		rows, err := tx.Query(ctx, `SELECT id, event_id, event_type, topic, msg_key, payload::text
			FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`, r.batch)
		if err != nil {
			return err
		}
		var ids []int64
		var msgs []kafka.Message
		for rows.Next() {
			var id int64
			var eventID, typ, topic, key, payload string
			if err := rows.Scan(&id, &eventID, &typ, &topic, &key, &payload); err != nil {
				return err
			}
			ids = append(ids, id)
			msgs = append(msgs, kafka.Message{
				Topic: topic, Key: []byte(key), Value: []byte(payload),
				Headers: []kafka.Header{{Key: "event-id", Value: []byte(eventID)}, {Key: "event-type", Value: []byte(typ)}},
			})
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if len(msgs) == 0 {
			return nil
		}
		if err := r.pub.WriteMessages(ctx, msgs...); err != nil {
			return fmt.Errorf("publish: %w", err)
		}
		n = len(msgs)
		_, err = tx.Exec(ctx, `UPDATE outbox SET published_at = now() WHERE id = ANY($1)`, ids)
		return err
	})
	return n, err
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
