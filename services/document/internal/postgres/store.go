// Package postgres is the document repository: documents and the customer
// read model, SQL written out, database errors turned into domain errors.
package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/objstore/pending"
	"github.com/kycfield/kyc/pkg/orgaudit"
	"github.com/kycfield/kyc/pkg/outbox"
	"github.com/kycfield/kyc/pkg/pgdb"
	"github.com/kycfield/kyc/services/document/internal/document"
)

// EventFunc turns an added document into the event published for it.
type EventFunc func(document.Document) (event.Event, error)

// Store implements document.Repository.
type Store struct {
	*pgdb.Store[document.Tx, document.Document]
	topic      string
	toEvent    EventFunc
	auditTopic string
}

// New returns a Store on pool that publishes each added document's event
// on topic (full name) through the outbox, in the insert's transaction.
func New(pool *pgxpool.Pool, topic string, toEvent EventFunc) *Store {
	s := &Store{topic: topic, toEvent: toEvent, auditTopic: orgaudit.Topic}
	s.Store = pgdb.NewStore(pool, func(tx pgx.Tx) document.Tx { return txn{tx} }, s.emitAdded)
	return s
}

// AuditOn sets the full (prefixed) name of the org audit topic that Add
// records the caller's upload on; unset, it is the unprefixed name.
func (s *Store) AuditOn(topic string) { s.auditTopic = topic }

// emitAdded writes d's event and the caller's document.upload in one
// outbox batch (one round trip for both).
func (s *Store) emitAdded(ctx context.Context, tx pgx.Tx, d document.Document) error {
	e, err := s.toEvent(d)
	if err != nil {
		return err
	}
	a, err := orgaudit.Message(ctx, s.auditTopic, document.ActionUpload, d.ID, orgaudit.Done, document.UploadDetails(d))
	if err != nil {
		return err
	}
	return outbox.Add(ctx, tx, outbox.Message{Topic: s.topic, Key: d.CustomerID, Event: e}, a)
}

type txn struct{ tx pgx.Tx }

// SaveCustomer inserts or updates the customer; a deletion is final (a
// late customer.created never revives it).
func (t txn) SaveCustomer(ctx context.Context, c document.Customer) error {
	_, err := t.tx.Exec(ctx, `INSERT INTO customers (customer_id, org_id, env, deleted) VALUES ($1, $2, $3, $4)
		ON CONFLICT (customer_id) DO UPDATE SET deleted = customers.deleted OR excluded.deleted`,
		c.ID, c.OrgID, c.Env, c.Deleted)
	return err
}

type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// room checks the customer and counts its documents; lock takes the
// customer's row so concurrent adds queue behind each other.
func room(ctx context.Context, q querier, orgID, env, customerID string, lock bool) error {
	sql := `SELECT deleted FROM customers WHERE customer_id = $1 AND org_id = $2 AND env = $3`
	if lock {
		sql += ` FOR UPDATE`
	}
	var deleted bool
	err := q.QueryRow(ctx, sql, customerID, orgID, env).Scan(&deleted)
	if pgdb.IsNoRows(err) || (err == nil && deleted) {
		return document.ErrCustomerNotFound
	}
	if err != nil {
		return apperr.Internal(err)
	}
	var n int
	if err := q.QueryRow(ctx, `SELECT count(*) FROM documents WHERE org_id = $1 AND env = $2 AND customer_id = $3`,
		orgID, env, customerID).Scan(&n); err != nil {
		return apperr.Internal(err)
	}
	if n >= document.MaxPerCustomer {
		return document.LimitReached()
	}
	return nil
}

// Room implements document.Repository.
func (s *Store) Room(ctx context.Context, who document.Caller, customerID string) error {
	return room(ctx, s.Pool(), who.OrgID, who.Env, customerID, false)
}

// Add implements document.Repository.
func (s *Store) Add(ctx context.Context, d document.Document) error {
	return s.Transact(ctx, func(tx pgx.Tx) error {
		if err := room(ctx, tx, d.OrgID, d.Env, d.CustomerID, true); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO documents (id, customer_id, org_id, env, document_type, file_name, file_url,
			file_type, file_size, verified, hosted, original_size, sha256, object_key, uploaded_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
			d.ID, d.CustomerID, d.OrgID, d.Env, d.DocumentType, d.FileName, d.FileURL, d.FileType, d.FileSize,
			d.Verified, d.Hosted, d.OriginalSize, d.SHA256, d.ObjectKey, d.UploadedAt)
		if err != nil {
			return err
		}
		if d.Hosted {
			if err := pending.Done(ctx, tx, d.ObjectKey); err != nil {
				return err
			}
		}
		return s.Emit(ctx, tx, d)
	})
}

// Announce implements document.Repository.
func (s *Store) Announce(ctx context.Context, key string) error {
	if err := pending.Begin(ctx, s.Pool(), key); err != nil {
		return apperr.Internal(err)
	}
	return nil
}

const cols = `id, customer_id, org_id, env, document_type, file_name, file_url, file_type, file_size, verified, hosted,
	original_size, sha256, object_key, uploaded_at`

func scan(row pgx.Row) (document.Document, error) {
	var d document.Document
	err := row.Scan(&d.ID, &d.CustomerID, &d.OrgID, &d.Env, &d.DocumentType, &d.FileName, &d.FileURL, &d.FileType,
		&d.FileSize, &d.Verified, &d.Hosted, &d.OriginalSize, &d.SHA256, &d.ObjectKey, &d.UploadedAt)
	d.UploadedAt = d.UploadedAt.UTC()
	return d, err
}

// List implements document.Repository: a missing, deleted or other
// tenant's customer is not found.
func (s *Store) List(ctx context.Context, who document.Caller, customerID string) ([]document.Document, error) {
	var deleted bool
	err := s.Pool().QueryRow(ctx, `SELECT deleted FROM customers WHERE customer_id = $1 AND org_id = $2 AND env = $3`,
		customerID, who.OrgID, who.Env).Scan(&deleted)
	if pgdb.IsNoRows(err) || (err == nil && deleted) {
		return nil, document.ErrCustomerNotFound
	}
	if err != nil {
		return nil, apperr.Internal(err)
	}
	rows, err := s.Pool().Query(ctx, `SELECT `+cols+` FROM documents WHERE org_id = $1 AND env = $2 AND customer_id = $3
		ORDER BY uploaded_at, id`, who.OrgID, who.Env, customerID)
	if err != nil {
		return nil, apperr.Internal(err)
	}
	defer rows.Close()
	out := []document.Document{}
	for rows.Next() {
		d, err := scan(rows)
		if err != nil {
			return nil, apperr.Internal(err)
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, apperr.Internal(err)
	}
	return out, nil
}

// Get implements document.Repository.
func (s *Store) Get(ctx context.Context, who document.Caller, customerID, docID string) (document.Document, error) {
	d, err := scan(s.Pool().QueryRow(ctx, `SELECT `+cols+` FROM documents d WHERE id = $1 AND customer_id = $2
		AND org_id = $3 AND env = $4 AND EXISTS (SELECT 1 FROM customers c WHERE c.customer_id = d.customer_id AND NOT c.deleted)`,
		docID, customerID, who.OrgID, who.Env))
	if pgdb.IsNoRows(err) {
		return d, document.ErrNotFound
	}
	if err != nil {
		return d, apperr.Internal(err)
	}
	return d, nil
}
