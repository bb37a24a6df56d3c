package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/pkg/pgdb"
	"github.com/kycfield/kyc/services/customer/internal/customer"
)

// sealed encrypts a BVN/NIN bound to its customer and field.
func (t *txn) sealed(c customer.Customer, field, v string) []byte {
	if v == "" {
		return nil
	}
	return t.s.keys.Seal([]byte(v), []byte(c.ID+"|"+field))
}

func (s *Store) open(id, field string, b []byte) (string, error) {
	if len(b) == 0 {
		return "", nil
	}
	pt, err := s.keys.Open(b, []byte(id+"|"+field))
	return string(pt), err
}

func (t *txn) Insert(ctx context.Context, c customer.Customer) error {
	b := &pgx.Batch{}
	b.Queue(`INSERT INTO customers (id, org_id, env, first_name, last_name, phone, email, occupation, bvn_enc, nin_enc,
		passport_number, loan_id, loan_type, relog_reason, status, submitted_at, created_at, updated_at, search_text,
		loan_key, email_key)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21)`,
		c.ID, c.OrgID, c.Env, c.FirstName, c.LastName, c.Phone, nullable(c.Email), nullable(c.Occupation),
		t.sealed(c, "bvn", c.BVN), t.sealed(c, "nin", c.NIN), nullable(c.PassportNumber), nullable(c.LoanID),
		nullable(c.LoanType), nullable(c.RelogReason), c.Status, c.SubmittedAt, c.CreatedAt, c.UpdatedAt, customer.SearchText(c),
		nullable(customer.LoanKey(c.LoanID)), nullable(customer.EmailKey(c.Email)))
	for i, a := range c.Addresses {
		queueAddress(b, c.ID, a, i)
	}
	for i, d := range c.Documents {
		b.Queue(`INSERT INTO documents (id, customer_id, position, document_type, file_name, file_url, file_type, file_size, uploaded_at)
			VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9)`, d.ID, c.ID, i, d.DocumentType, d.FileName, d.FileURL, d.FileType, d.FileSize, d.UploadedAt)
	}
	return t.tx.SendBatch(ctx, b).Close()
}

func queueAddress(b *pgx.Batch, customerID string, a customer.Address, pos int) {
	b.Queue(`INSERT INTO addresses (id, customer_id, position, label, street_number, street_name, landmark, city, lga, state,
		country, notes, status, created_at, updated_at) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15)`,
		a.ID, customerID, pos, a.Label, a.StreetNumber, a.StreetName, a.Landmark, a.City, a.LGA, a.State, a.Country, a.Notes,
		a.Status, a.CreatedAt, a.UpdatedAt)
}

const customerCols = `id, org_id, env, first_name, last_name, phone, coalesce(email, ''), coalesce(occupation, ''), bvn_enc, nin_enc,
	coalesce(passport_number, ''), coalesce(loan_id, ''), coalesce(loan_type, ''), coalesce(relog_reason, ''), status,
	coalesce(report_url, ''), verification_date, submitted_at, created_at, updated_at, deleted_at`

func (s *Store) scanCustomer(row pgx.Row) (customer.Customer, error) {
	var c customer.Customer
	var bvn, nin []byte
	err := row.Scan(&c.ID, &c.OrgID, &c.Env, &c.FirstName, &c.LastName, &c.Phone, &c.Email, &c.Occupation, &bvn, &nin,
		&c.PassportNumber, &c.LoanID, &c.LoanType, &c.RelogReason, &c.Status, &c.ReportURL, &c.VerificationDate,
		&c.SubmittedAt, &c.CreatedAt, &c.UpdatedAt, &c.DeletedAt)
	if err != nil {
		return c, err
	}
	if c.BVN, err = s.open(c.ID, "bvn", bvn); err != nil {
		return c, err
	}
	c.NIN, err = s.open(c.ID, "nin", nin)
	return c, err
}

func (t *txn) Get(ctx context.Context, orgID, env, id string, forUpdate, withDeleted bool) (customer.Customer, error) {
	return t.s.get(ctx, t.tx, orgID, env, id, forUpdate, withDeleted)
}

// Get reads a live customer in one read-only snapshot: the verification
// consumer changes an address and the customer's status in one
// transaction, and a read must never show one without the other.
func (s *Store) Get(ctx context.Context, orgID, env, id string) (customer.Customer, error) {
	var c customer.Customer
	err := s.snapshot(ctx, func(q querier) (err error) {
		c, err = s.get(ctx, q, orgID, env, id, false, false)
		return err
	})
	return c, translate(err)
}

// snapshot runs fn's reads in one REPEATABLE READ, READ ONLY transaction,
// so a customer and its addresses and documents are read as of one moment.
func (s *Store) snapshot(ctx context.Context, fn func(q querier) error) error {
	return pgx.BeginTxFunc(ctx, s.Pool(), pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly},
		func(tx pgx.Tx) error { return fn(tx) })
}

func (s *Store) get(ctx context.Context, q querier, orgID, env, id string, forUpdate, withDeleted bool) (customer.Customer, error) {
	sql := `SELECT ` + customerCols + ` FROM customers WHERE id = $1 AND org_id = $2 AND env = $3`
	if !withDeleted {
		sql += ` AND deleted_at IS NULL`
	}
	if forUpdate {
		sql += ` FOR UPDATE`
	}
	c, err := s.scanCustomer(q.QueryRow(ctx, sql, id, orgID, env))
	if pgdb.IsNoRows(err) {
		return c, customer.ErrNotFound
	}
	if err != nil {
		return c, err
	}
	byID, err := s.children(ctx, q, []string{c.ID})
	if err != nil {
		return c, err
	}
	ch := byID[c.ID]
	c.Addresses, c.Documents = ch.addresses, ch.documents
	return c, nil
}

// querier is a pool or a transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

type children struct {
	addresses []customer.Address
	documents []customer.Document
}

// children loads the addresses and documents of several customers in two
// queries.
func (s *Store) children(ctx context.Context, q querier, ids []string) (map[string]*children, error) {
	out := make(map[string]*children, len(ids))
	for _, id := range ids {
		out[id] = &children{addresses: []customer.Address{}, documents: []customer.Document{}}
	}
	rows, err := q.Query(ctx, `SELECT customer_id, id, label, street_number, street_name, landmark, city, lga, state, country,
		notes, status, verification_data, sequence, created_at, updated_at, due_by FROM addresses WHERE customer_id = ANY($1) ORDER BY customer_id, position`, ids)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var cid string
		var a customer.Address
		if err := rows.Scan(&cid, &a.ID, &a.Label, &a.StreetNumber, &a.StreetName, &a.Landmark, &a.City, &a.LGA, &a.State,
			&a.Country, &a.Notes, &a.Status, &a.VerificationData, &a.Sequence, &a.CreatedAt, &a.UpdatedAt, &a.DueBy); err != nil {
			rows.Close()
			return nil, err
		}
		out[cid].addresses = append(out[cid].addresses, a)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows, err = q.Query(ctx, `SELECT customer_id, id, document_type, file_name, file_url, file_type, file_size, verified, uploaded_at
		FROM documents WHERE customer_id = ANY($1) ORDER BY customer_id, position`, ids)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var cid string
		var d customer.Document
		if err := rows.Scan(&cid, &d.ID, &d.DocumentType, &d.FileName, &d.FileURL, &d.FileType, &d.FileSize, &d.Verified, &d.UploadedAt); err != nil {
			rows.Close()
			return nil, err
		}
		out[cid].documents = append(out[cid].documents, d)
	}
	return out, rows.Err()
}

func (t *txn) UpdatePersonal(ctx context.Context, c customer.Customer) error {
	// A key is rewritten only with its value: a customer left without
	// one by migration 005 (it shared it with an older customer) keeps
	// none while its loanId or email stays as it is, so changing another
	// field is not refused as a duplicate.
	_, err := t.tx.Exec(ctx, `UPDATE customers SET first_name=$2, last_name=$3, phone=$4, email=$5, occupation=$6, bvn_enc=$7,
		nin_enc=$8, passport_number=$9, loan_id=$10, loan_type=$11, updated_at=$12, search_text=$13,
		loan_key = CASE WHEN loan_id IS DISTINCT FROM $10 THEN $14 ELSE loan_key END,
		email_key = CASE WHEN email IS DISTINCT FROM $5 THEN $15 ELSE email_key END WHERE id=$1`,
		c.ID, c.FirstName, c.LastName, c.Phone, nullable(c.Email), nullable(c.Occupation), t.sealed(c, "bvn", c.BVN),
		t.sealed(c, "nin", c.NIN), nullable(c.PassportNumber), nullable(c.LoanID), nullable(c.LoanType), c.UpdatedAt, customer.SearchText(c),
		nullable(customer.LoanKey(c.LoanID)), nullable(customer.EmailKey(c.Email)))
	return err
}

func (t *txn) LockStatus(ctx context.Context, orgID, env, id string) (customer.StatusNow, error) {
	var st customer.StatusNow
	err := t.tx.QueryRow(ctx, `SELECT status, verification_date, deleted_at IS NOT NULL FROM customers
		WHERE id = $1 AND org_id = $2 AND env = $3 FOR UPDATE`, id, orgID, env).Scan(&st.Status, &st.VerificationDate, &st.Deleted)
	if pgdb.IsNoRows(err) {
		return st, customer.ErrNotFound
	}
	return st, err
}

// moveAddress is one statement, so that the busiest write of the service
// is one round trip: the address moves only if the event is newer, and
// the customer's status and the counters move only if the address did.
// The caller holds the customer's lock (LockStatus), so CountFrom is the
// status the counters hold it under. The counters moved are the
// customer's slot of each status (migration 009: concurrent moves of one
// organization's customers meet on a row only when their customers share
// a slot), locked in the order of their status, as every writer of the
// counters does: a batch of moves in one transaction, beside another
// replica's batch, then waits instead of deadlocking (locked
// from-then-to, PENDING→IN_PROGRESS against IN_PROGRESS→VERIFIED
// deadlocked).
const moveAddress = `WITH moved AS (
	UPDATE addresses SET status = $4, verification_data = COALESCE($5::jsonb, verification_data), sequence = $6, updated_at = $7,
		due_by = COALESCE($12::timestamptz, due_by)
	WHERE id = $3 AND customer_id = $1 AND sequence < $6 RETURNING 1
), restatused AS (
	UPDATE customers SET status = $8, verification_date = $9, updated_at = $7
	WHERE id = $1 AND org_id = $2 AND env = $10 AND EXISTS (SELECT 1 FROM moved) RETURNING 1
), counted AS (
	INSERT INTO customer_count_slots (org_id, env, status, slot, n)
	SELECT $2::text, $10::text, s.status, $13::smallint, s.d FROM (VALUES ($11::text, -1), ($8::text, 1)) AS s(status, d)
	WHERE $11::text <> '' AND EXISTS (SELECT 1 FROM restatused)
	ORDER BY s.status
	ON CONFLICT (org_id, env, status, slot) DO UPDATE SET n = customer_count_slots.n + EXCLUDED.n
)
SELECT EXISTS (SELECT 1 FROM moved)`

func (t *txn) MoveAddress(ctx context.Context, orgID, env string, m customer.Move) (bool, error) {
	var moved bool
	err := t.tx.QueryRow(ctx, moveAddress, m.CustomerID, orgID, m.AddressID, m.Status, nullJSON(m.VerificationData), m.Sequence,
		m.At, m.CustomerStatus, m.VerificationDate, env, m.CountFrom, m.DueBy, countSlot(m.CustomerID)).Scan(&moved)
	return moved, err
}

func (t *txn) SetReportURL(ctx context.Context, orgID, env, id, url string) (bool, error) {
	tag, err := t.tx.Exec(ctx, `UPDATE customers SET report_url = $4 WHERE id = $1 AND org_id = $2 AND env = $3
		AND report_url IS DISTINCT FROM $4`, id, orgID, env, url)
	return tag.RowsAffected() == 1, err
}

func (t *txn) SoftDelete(ctx context.Context, c customer.Customer) error {
	_, err := t.tx.Exec(ctx, `UPDATE customers SET deleted_at=$2, updated_at=$3 WHERE id=$1`, c.ID, c.DeletedAt, c.UpdatedAt)
	return err
}

func (t *txn) InsertAddress(ctx context.Context, c customer.Customer, a customer.Address, position int) error {
	b := &pgx.Batch{}
	queueAddress(b, c.ID, a, position)
	return t.tx.SendBatch(ctx, b).Close()
}

func (t *txn) InsertDocument(ctx context.Context, c customer.Customer, d customer.Document, position int) error {
	_, err := t.tx.Exec(ctx, `INSERT INTO documents (id, customer_id, position, document_type, file_name, file_url, file_type, file_size,
		verified, uploaded_at) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10)`,
		d.ID, c.ID, position, d.DocumentType, d.FileName, d.FileURL, d.FileType, d.FileSize, d.Verified, d.UploadedAt)
	return err
}

func nullJSON(b []byte) any {
	if len(b) == 0 {
		return nil
	}
	return string(b)
}
