// Package postgres is the customer repository: SQL written out, BVN/NIN
// sealed with the keyring on the way in and opened on the way out, and
// the events it is handed written to the outbox in the same transaction
// as the rows.
package postgres

import (
	"context"
	"fmt"
	"hash/fnv"
	"sort"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/keyring"
	"github.com/kycfield/kyc/pkg/orgaudit"
	"github.com/kycfield/kyc/pkg/outbox"
	"github.com/kycfield/kyc/pkg/pgdb"
	"github.com/kycfield/kyc/services/customer/internal/customer"
)

// Store implements customer.Store.
type Store struct {
	*pgdb.Store[customer.Tx, customer.Change]
	keys *keyring.Keyring
	// hint is where the import worker last claimed a row (imports.go).
	hintMu sync.Mutex
	hint   claimPos
	// topic and toEvent make each change's event; auditTopic is where
	// lenders' actions go.
	topic      string
	toEvent    EventFunc
	auditTopic string
}

// EventFunc turns a domain change into the event published for it
// (events.Of).
type EventFunc func(customer.Change) (event.Event, error)

// New returns a Store. topic is the full name of the customer topic, and
// toEvent makes the event each change writes to the outbox, in the same
// transaction as the change.
func New(pool *pgxpool.Pool, keys *keyring.Keyring, topic string, toEvent EventFunc) *Store {
	s := &Store{keys: keys, topic: topic, toEvent: toEvent, auditTopic: orgaudit.Topic}
	s.Store = pgdb.NewStore(pool, func(tx pgx.Tx) customer.Tx { return &txn{tx: tx, s: s} }, s.emit).TranslateWith(translate)
	return s
}

// AuditOn sets the full (prefixed) name of the org audit topic; unset, it
// is the unprefixed name.
func (s *Store) AuditOn(topic string) { s.auditTopic = topic }

// emit writes a change's event and, when a caller made it, the caller's
// action: both in one outbox batch, so auditing a create costs no extra
// round trip.
func (s *Store) emit(ctx context.Context, tx pgx.Tx, ch customer.Change) error {
	e, err := s.toEvent(ch)
	if err != nil {
		return err
	}
	msgs := []outbox.Message{{Topic: s.topic, Key: ch.Customer.ID, Event: e}}
	if ch.Audit != nil {
		a, err := s.auditMessage(ctx, *ch.Audit)
		if err != nil {
			return err
		}
		msgs = append(msgs, a)
	}
	return outbox.Add(ctx, tx, msgs...)
}

// auditMessage is ctx's caller's action a, done.
func (s *Store) auditMessage(ctx context.Context, a customer.Audit) (outbox.Message, error) {
	return orgaudit.Message(ctx, s.auditTopic, a.Action, a.Target, orgaudit.Done, a.Details)
}

// audit writes ctx's caller's action a to the outbox in tx.
func (s *Store) audit(ctx context.Context, tx pgx.Tx, a customer.Audit) error {
	m, err := s.auditMessage(ctx, a)
	if err != nil {
		return err
	}
	return outbox.Add(ctx, tx, m)
}

// translate reports a unique violation of a customer's identity as the
// duplicate it is, and leaves the rest to pgdb.Translate.
func translate(err error) error {
	if _, ok := apperr.As(err); !ok {
		if c, ok := pgdb.UniqueViolation(err); ok {
			// The advisory locks make this a backstop only.
			// The raw-value indexes stay until the release after the keys
			// (expand, then contract): the previous release still uses them.
			field := map[string]string{"customers_unique_phone": "phone", "customers_unique_email_key": "email", "customers_unique_loan_key": "loanId",
				"customers_unique_email": "email", "customers_unique_loan": "loanId"}[c]
			if field != "" {
				return customer.DuplicateError([]customer.Duplicate{{Field: field}})
			}
		}
	}
	return pgdb.Translate(err)
}

type txn struct {
	tx pgx.Tx
	s  *Store
}

func (t *txn) LockIdentity(ctx context.Context, orgID, env string, values map[string]string) error {
	keys := make([]string, 0, len(values))
	for f, v := range values {
		keys = append(keys, fmt.Sprintf("customer-identity|%s|%s|%s|%s", orgID, env, f, v))
	}
	sort.Strings(keys) // one order for every transaction: no deadlocks
	// One round trip; a batch runs its statements in order, so the lock
	// order holds.
	var b pgx.Batch
	for _, k := range keys {
		b.Queue(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, k)
	}
	return t.tx.SendBatch(ctx, &b).Close()
}

func (t *txn) FindDuplicates(ctx context.Context, orgID, env string, values map[string]string, exceptID string) ([]customer.Duplicate, error) {
	rows, err := t.tx.Query(ctx, `
		SELECT DISTINCT ON (field) field, id FROM (
			SELECT 'phone' AS field, id, created_at FROM customers
			 WHERE org_id = $1 AND env = $2 AND deleted_at IS NULL AND phone = $3 AND id <> $6
			UNION ALL
			SELECT 'email', id, created_at FROM customers
			 WHERE org_id = $1 AND env = $2 AND deleted_at IS NULL AND email_key = $4 AND id <> $6
			UNION ALL
			SELECT 'loanId', id, created_at FROM customers
			 WHERE org_id = $1 AND env = $2 AND deleted_at IS NULL AND loan_key = $5 AND id <> $6
		) m ORDER BY field, created_at DESC`,
		orgID, env, nullable(values["phone"]), nullable(values["email"]), nullable(values["loanId"]), exceptID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (customer.Duplicate, error) {
		var d customer.Duplicate
		return d, r.Scan(&d.Field, &d.CustomerID)
	})
}

// countSlots is how many slot rows share each status's counter
// (migration 009): enough that the consumers and replicas moving
// customers at once seldom meet on one row, few enough that a count reads
// a handful of rows.
const countSlots = 16

// countSlot is the slot customer id's changes go to. Any slot would keep
// the sums exact; one per customer keeps its -1 and +1 on one page.
func countSlot(id string) int16 {
	h := fnv.New32a()
	_, _ = h.Write([]byte(id))
	return int16(h.Sum32() % countSlots)
}

// countCreated raises 'ALL' (under the limit, on its one row) and, only
// if it did, the status's slot, in one statement: 'ALL' is locked first,
// as by every writer of both.
const countCreated = `WITH total AS (
	INSERT INTO customer_counts (org_id, env, status, n) VALUES ($1, $2, 'ALL', 1)
	ON CONFLICT (org_id, env, status) DO UPDATE SET n = customer_counts.n + 1
	WHERE $5::int = 0 OR customer_counts.n < $5::int RETURNING n
), slotted AS (
	INSERT INTO customer_count_slots (org_id, env, status, slot, n) SELECT $1, $2, $3, $4, 1 FROM total
	ON CONFLICT (org_id, env, status, slot) DO UPDATE SET n = customer_count_slots.n + 1
)
SELECT count(*) FROM total`

func (t *txn) CountCreated(ctx context.Context, orgID, env, id, status string, limit int) (bool, error) {
	var n int
	err := t.tx.QueryRow(ctx, countCreated, orgID, env, status, countSlot(id), limit).Scan(&n)
	return n == 1, err
}

// countDeleted lowers 'ALL' and the status's slot in one statement.
const countDeleted = `WITH total AS (
	INSERT INTO customer_counts (org_id, env, status, n) VALUES ($1, $2, 'ALL', -1)
	ON CONFLICT (org_id, env, status) DO UPDATE SET n = customer_counts.n - 1 RETURNING 1
)
INSERT INTO customer_count_slots (org_id, env, status, slot, n) SELECT $1, $2, $3, $4, -1 FROM total
ON CONFLICT (org_id, env, status, slot) DO UPDATE SET n = customer_count_slots.n - 1`

func (t *txn) CountDeleted(ctx context.Context, orgID, env, id, status string) error {
	_, err := t.tx.Exec(ctx, countDeleted, orgID, env, status, countSlot(id))
	return err
}

func (t *txn) Emit(ctx context.Context, ch customer.Change) error { return t.s.Emit(ctx, t.tx, ch) }

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
