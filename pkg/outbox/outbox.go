// Package outbox makes "change state and publish an event" atomic: Add
// writes the event in the caller's transaction, and a Relay publishes
// committed rows to Kafka and marks them sent. A crash between the two only
// delays an event (it is published again, and consumers dedupe by id).
package outbox

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"

	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/pgdb"
	"github.com/kycfield/kyc/pkg/telemetry"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Migration returns the outbox table's migrations for pgdb.Migrate.
func Migration() pgdb.Migration {
	sub, _ := fs.Sub(migrations, "migrations")
	return pgdb.Migration{VersionTable: "outbox_schema_version", Files: sub}
}

// notifyChannel wakes an idle relay as soon as a transaction with events
// commits.
const notifyChannel = "kyc_outbox"

// writersLockKey is the advisory lock every transaction that writes
// events holds, shared, from its first outbox INSERT (before it reads
// outbox_relay.idle) until it ends. A relay going idle takes it
// exclusively for an instant, which it can only do once every writer
// that may have read "busy" has ended (relay_idle.go).
const writersLockKey = 0x6b79635f6f757477 // "kyc_outw"

// insertLocked is the first INSERT of Add's batch: it takes
// writersLockKey shared as it inserts (the function in FROM runs once,
// before the row is written), so the lock costs no statement of its own.
// Held to the transaction's end, it is granted before notifyIfIdle, the
// batch's last statement, takes its snapshot.
const insertLocked = `INSERT INTO outbox (event_id, event_type, topic, msg_key, payload, traceparent)
	SELECT $1, $2, $3, $4, $5, $6 FROM pg_advisory_xact_lock_shared($7)`

// insertOne inserts the batch's other messages, under the lock the first took.
const insertOne = `INSERT INTO outbox (event_id, event_type, topic, msg_key, payload, traceparent) VALUES ($1, $2, $3, $4, $5, $6)`

// notifyIfIdle NOTIFYs only when the relay is idle. It is a statement of
// its own, after the lock's, so that under READ COMMITTED it reads the
// flag as committed after the lock was granted. A transaction under
// REPEATABLE READ or SERIALIZABLE reads it as of its first statement,
// which may be before the relay went idle, so such a transaction always
// NOTIFYs.
const notifyIfIdle = `SELECT pg_notify($1, '') FROM outbox_relay
	WHERE idle OR current_setting('transaction_isolation') <> 'read committed'`

// Message is one event bound for a topic, keyed so that events of the same
// aggregate (a customer, an organization) keep their order.
type Message struct {
	Topic string
	Key   string
	Event event.Event
}

// Add inserts messages in tx, and NOTIFYs the relay if it is idle (the
// NOTIFY is delivered only if tx commits; a busy relay finds the rows
// without one). Each row keeps ctx's trace context, which the relay
// publishes with it.
func Add(ctx context.Context, tx pgx.Tx, msgs ...Message) error {
	if len(msgs) == 0 {
		return nil
	}
	tp := telemetry.Traceparent(ctx)
	b := &pgx.Batch{}
	for i, m := range msgs {
		payload, err := json.Marshal(m.Event)
		if err != nil {
			return fmt.Errorf("outbox: marshal: %w", err)
		}
		if i == 0 {
			b.Queue(insertLocked, m.Event.ID, m.Event.Type, m.Topic, m.Key, payload, tp, int64(writersLockKey))
			continue
		}
		b.Queue(insertOne, m.Event.ID, m.Event.Type, m.Topic, m.Key, payload, tp)
	}
	b.Queue(notifyIfIdle, notifyChannel)
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("outbox: insert: %w", err)
	}
	return nil
}

// Emitter returns a pgdb.EmitFunc that writes a domain change to the
// outbox on topic (full name): toEvent makes its event and key the key
// that orders it (the customer's or the organization's id).
func Emitter[C any](topic string, toEvent func(C) (event.Event, error), key func(C) string) pgdb.EmitFunc[C] {
	return func(ctx context.Context, tx pgx.Tx, c C) error {
		e, err := toEvent(c)
		if err != nil {
			return err
		}
		return Add(ctx, tx, Message{Topic: topic, Key: key(c), Event: e})
	}
}
