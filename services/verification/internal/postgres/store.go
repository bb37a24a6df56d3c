// Package postgres is the verification repository: cases, jobs, photos
// and counters, SQL written out, and the events it is handed written to
// the outbox in the same transaction as the rows.
package postgres

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/outbox"
	"github.com/kycfield/kyc/pkg/pgdb"
	"github.com/kycfield/kyc/pkg/staffaudit"
	"github.com/kycfield/kyc/pkg/telemetry"
	"github.com/kycfield/kyc/services/verification/internal/verification"
)

// EventFunc turns a domain change into the event published for it.
type EventFunc func(verification.Change) (event.Event, error)

// SandboxChannel is notified when sandbox work may have become due, so
// the worker need not wait for its next poll.
const SandboxChannel = "verification_sandbox"

// Store implements verification.Store.
type Store struct {
	*pgdb.Store[verification.Tx, verification.Change]
	auditTopic string
}

// New returns a Store publishing on topic (full name).
func New(pool *pgxpool.Pool, topic string, toEvent EventFunc) *Store {
	s := &Store{auditTopic: staffaudit.Topic}
	s.Store = pgdb.NewStore(pool, func(tx pgx.Tx) verification.Tx { return &txn{tx: tx, s: s} },
		outbox.Emitter(topic, toEvent, func(ch verification.Change) string { return ch.Case.CustomerID }))
	return s
}

type txn struct {
	tx pgx.Tx
	s  *Store
}

const caseCols = `customer_id, org_id, env, first_name, last_name, phone, loan_id, loan_type, documents, status,
	verification_date, created_at, updated_at, deleted_at`

func scanCase(row pgx.Row) (verification.Case, error) {
	var c verification.Case
	err := row.Scan(&c.CustomerID, &c.OrgID, &c.Env, &c.FirstName, &c.LastName, &c.Phone, &c.LoanID, &c.LoanType,
		&c.Documents, &c.Status, &c.VerificationDate, &c.CreatedAt, &c.UpdatedAt, &c.DeletedAt)
	if pgdb.IsNoRows(err) {
		return c, verification.ErrNotFound
	}
	return c, err
}

const jobCols = `address_id, customer_id, org_id, env, position, address, status, sequence, coalesce(agent_id, '') AS agent_id,
	due_at, attempts, timeline, result, visit, created_at, updated_at, completed_at, hold, reviews, due_by`

func scanJob(row pgx.Row) (verification.Job, error) { return scanJobWith(row) }

// scanJobWith reads jobCols and then the columns after (if any).
func scanJobWith(row pgx.Row, after ...any) (verification.Job, error) {
	var j verification.Job
	var addr, attempts, timeline, result, visit, hold, reviews []byte
	dst := []any{&j.AddressID, &j.CustomerID, &j.OrgID, &j.Env, &j.Position, &addr, &j.Status, &j.Sequence, &j.AgentID,
		&j.DueAt, &attempts, &timeline, &result, &visit, &j.CreatedAt, &j.UpdatedAt, &j.CompletedAt, &hold, &reviews, &j.DueBy}
	err := row.Scan(append(dst, after...)...)
	if err != nil {
		return j, err
	}
	if err := unmarshal(addr, &j.Address); err != nil {
		return j, err
	}
	if err := unmarshal(attempts, &j.Attempts); err != nil {
		return j, err
	}
	if err := unmarshal(timeline, &j.Timeline); err != nil {
		return j, err
	}
	if j.Visit, err = optional[verification.CheckInRecord](visit); err != nil {
		return j, err
	}
	if j.Hold, err = optional[verification.Hold](hold); err != nil {
		return j, err
	}
	if err := unmarshal(reviews, &j.Reviews); err != nil {
		return j, err
	}
	j.Result, err = optional[verification.Result](result)
	return j, err
}

func unmarshal(b []byte, v any) error {
	if len(b) == 0 {
		return nil
	}
	return json.Unmarshal(b, v)
}

// jobs reads a case's jobs, and with photos their photos too.
func jobs(ctx context.Context, q pgx.Tx, c *verification.Case, lock, photos bool) error {
	sql := `SELECT ` + jobCols + ` FROM jobs WHERE customer_id = $1 ORDER BY position`
	if lock {
		sql += ` FOR UPDATE`
	}
	rows, err := q.Query(ctx, sql, c.CustomerID)
	if err != nil {
		return err
	}
	c.Jobs, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (verification.Job, error) { return scanJob(r) })
	if err != nil || !photos {
		return err
	}
	rows, err = q.Query(ctx, `SELECT address_id, `+photoCols+` FROM photos WHERE customer_id = $1 ORDER BY created_at, id`, c.CustomerID)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var addressID string
		p, err := scanPhoto(rows, &addressID)
		if err != nil {
			return err
		}
		for i := range c.Jobs {
			if c.Jobs[i].AddressID == addressID {
				c.Jobs[i].Photos = append(c.Jobs[i].Photos, p)
			}
		}
	}
	return rows.Err()
}

func (t *txn) Case(ctx context.Context, customerID string) (verification.Case, error) {
	c, err := scanCase(t.tx.QueryRow(ctx, `SELECT `+caseCols+` FROM cases WHERE customer_id = $1 FOR UPDATE`, customerID))
	if err != nil {
		return c, err
	}
	return c, jobs(ctx, t.tx, &c, true, true)
}

func (t *txn) InsertCase(ctx context.Context, c verification.Case) (bool, error) {
	tag, err := t.tx.Exec(ctx, `INSERT INTO cases (`+caseCols+`) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14)
		ON CONFLICT (customer_id) DO NOTHING`, c.CustomerID, c.OrgID, c.Env, c.FirstName, c.LastName, c.Phone, c.LoanID,
		c.LoanType, documents(c.Documents), c.Status, c.VerificationDate, c.CreatedAt, c.UpdatedAt, c.DeletedAt)
	return tag.RowsAffected() == 1, err
}

func documents(b []byte) []byte {
	if len(b) == 0 {
		return []byte("[]")
	}
	return b
}

func (t *txn) UpdateCase(ctx context.Context, c verification.Case) error {
	_, err := t.tx.Exec(ctx, `UPDATE cases SET first_name = $2, last_name = $3, phone = $4, loan_id = $5, loan_type = $6,
		documents = $7, status = $8, verification_date = $9, updated_at = $10, deleted_at = $11 WHERE customer_id = $1`,
		c.CustomerID, c.FirstName, c.LastName, c.Phone, c.LoanID, c.LoanType, documents(c.Documents), c.Status,
		c.VerificationDate, c.UpdatedAt, c.DeletedAt)
	return err
}

func (t *txn) InsertJob(ctx context.Context, j verification.Job) (bool, error) {
	addr, _ := json.Marshal(j.Address)
	timeline, _ := json.Marshal(j.Timeline)
	tag, err := t.tx.Exec(ctx, `INSERT INTO jobs (address_id, customer_id, org_id, env, position, address, status, sequence,
		due_at, timeline, created_at, updated_at, traceparent, due_by) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14)
		ON CONFLICT (address_id) DO NOTHING`, j.AddressID, j.CustomerID, j.OrgID, j.Env, j.Position, addr, j.Status,
		j.Sequence, j.DueAt, timeline, j.CreatedAt, j.UpdatedAt, telemetry.Traceparent(ctx), j.DueBy)
	if err != nil || tag.RowsAffected() == 0 {
		return false, err
	}
	return true, nil
}

// WakeSandbox implements verification.Tx (the notification is delivered
// when the transaction commits).
func (t *txn) WakeSandbox(ctx context.Context) error {
	_, err := t.tx.Exec(ctx, `SELECT pg_notify($1, '')`, SandboxChannel)
	return err
}

func (t *txn) UpdateJob(ctx context.Context, j verification.Job) error {
	attempts, _ := json.Marshal(orEmpty(j.Attempts))
	timeline, _ := json.Marshal(j.Timeline)
	var result []byte
	if j.Result != nil {
		result, _ = json.Marshal(j.Result)
	}
	var visit []byte
	if j.Visit != nil {
		visit, _ = json.Marshal(j.Visit)
	}
	var heldAt *time.Time
	if j.Hold != nil {
		heldAt = &j.Hold.Since
	}
	reviews, _ := json.Marshal(orEmpty(j.Reviews))
	_, err := t.tx.Exec(ctx, `UPDATE jobs SET status = $2, sequence = $3, agent_id = nullif($4, ''), due_at = $5,
		attempts = $6, timeline = $7, result = $8, updated_at = $9, completed_at = $10, visit = $11,
		hold = $12, held_at = $13, reviews = $14 WHERE address_id = $1`,
		j.AddressID, j.Status, j.Sequence, j.AgentID, j.DueAt, attempts, timeline, result, j.UpdatedAt, j.CompletedAt, visit,
		jsonOrNil(j.Hold), heldAt, reviews)
	return err
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func (t *txn) InsertPhotos(ctx context.Context, j verification.Job, photos []verification.Photo) error {
	b := &pgx.Batch{}
	for _, p := range photos {
		if p.CreatedAt.IsZero() {
			p.CreatedAt = time.Now().UTC()
		}
		b.Queue(`INSERT INTO photos (id, address_id, customer_id, org_id, env, tag, object_key, content_type, size, captured_at,
			created_at, device, exif, idem_key, reused) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,nullif($14, ''),$15)`,
			p.ID, j.AddressID, j.CustomerID, j.OrgID, j.Env, p.Tag, p.ObjectKey, p.ContentType, p.Size, p.CapturedAt,
			p.CreatedAt, jsonOrNil(p.Device), jsonOrNil(p.Exif), p.Key, p.Reused)
		b.Queue(`DELETE FROM pending_objects WHERE object_key = $1`, p.ObjectKey) // pending.Done, batched
	}
	return t.tx.SendBatch(ctx, b).Close()
}

func (t *txn) Count(ctx context.Context, orgID, env, from, to string) error {
	type delta struct {
		status string
		d      int
	}
	var ds []delta
	switch {
	case from == "" && to != "":
		ds = []delta{{"ALL", 1}, {to, 1}}
	case to == "" && from != "":
		ds = []delta{{"ALL", -1}, {from, -1}}
	case from != to:
		ds = []delta{{from, -1}, {to, 1}}
	}
	// Every transaction takes an organization's counter rows in one order
	// (by status), whichever way its case moves: a case moving back
	// (VERIFIED -> IN_PROGRESS on an added address) while another moves
	// forward (IN_PROGRESS -> VERIFIED) would otherwise deadlock.
	slices.SortFunc(ds, func(a, b delta) int { return strings.Compare(a.status, b.status) })
	b := &pgx.Batch{}
	for _, d := range ds {
		b.Queue(`INSERT INTO case_counts (org_id, env, status, n) VALUES ($1, $2, $3, $4)
			ON CONFLICT (org_id, env, status) DO UPDATE SET n = case_counts.n + EXCLUDED.n`, orgID, env, d.status, d.d)
	}
	return t.tx.SendBatch(ctx, b).Close()
}

func (t *txn) AddTurnaround(ctx context.Context, orgID, env string, d time.Duration, n int) error {
	_, err := t.tx.Exec(ctx, `INSERT INTO turnaround (org_id, env, seconds, n) VALUES ($1, $2, $3, $4)
		ON CONFLICT (org_id, env) DO UPDATE SET seconds = turnaround.seconds + EXCLUDED.seconds, n = turnaround.n + EXCLUDED.n`,
		orgID, env, d.Seconds(), n)
	return err
}

func (t *txn) DueSandbox(ctx context.Context, now time.Time, limit int) ([]verification.SandboxDue, error) {
	// Lock the cases, not only the jobs: a transition changes the case too,
	// and two workers must never simulate one customer at once.
	rows, err := t.tx.Query(ctx, `SELECT c.customer_id, coalesce((SELECT j.traceparent FROM jobs j
			WHERE j.customer_id = c.customer_id AND j.env = 'test' AND j.due_at IS NOT NULL AND j.due_at <= $1
			  AND j.status IN ('PENDING', 'ASSIGNED', 'IN_PROGRESS') ORDER BY j.due_at LIMIT 1), '')
		FROM cases c WHERE c.customer_id IN (
			SELECT customer_id FROM jobs WHERE env = 'test' AND due_at IS NOT NULL AND due_at <= $1
			   AND status IN ('PENDING', 'ASSIGNED', 'IN_PROGRESS') ORDER BY due_at LIMIT $2)
		FOR UPDATE OF c SKIP LOCKED`, now, limit)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowToStructByPos[verification.SandboxDue])
}

func (t *txn) Emit(ctx context.Context, ch verification.Change) error { return t.s.Emit(ctx, t.tx, ch) }

const photoCols = `id, tag, object_key, content_type, size, captured_at, created_at, device, exif, reused`

// scanPhoto reads photoCols, after the columns before (if any).
func scanPhoto(row pgx.Row, before ...any) (verification.Photo, error) {
	var p verification.Photo
	var device, exif []byte
	dst := append(before, &p.ID, &p.Tag, &p.ObjectKey, &p.ContentType, &p.Size, &p.CapturedAt, &p.CreatedAt, &device, &exif, &p.Reused)
	if err := row.Scan(dst...); err != nil {
		return p, err
	}
	var err error
	if p.Device, err = optional[verification.Point](device); err != nil {
		return p, err
	}
	p.Exif, err = optional[verification.Exif](exif)
	return p, err
}

// optional decodes a nullable JSON column: nil for SQL NULL.
func optional[T any](b []byte) (*T, error) {
	if len(b) == 0 {
		return nil, nil
	}
	v := new(T)
	return v, json.Unmarshal(b, v)
}

// jsonOrNil marshals v, or gives SQL NULL for a nil pointer.
func jsonOrNil[T any](v *T) []byte {
	if v == nil {
		return nil
	}
	b, _ := json.Marshal(v)
	return b
}
