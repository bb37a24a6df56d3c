// Package postgres is the reporting repository: the customer read model
// and the report versions, SQL written out, database errors turned into
// domain errors.
package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/orgaudit"
	"github.com/kycfield/kyc/pkg/outbox"
	"github.com/kycfield/kyc/pkg/pgdb"
	"github.com/kycfield/kyc/services/reporting/internal/report"
)

// EventFunc turns a stored report into the event published for it.
type EventFunc func(report.Report) (event.Event, error)

// Store implements report.Repository.
type Store struct {
	*pgdb.Store[report.Tx, report.Report]
	auditTopic string
}

// New returns a Store on pool that publishes each report's event on topic
// (full name) through the outbox, in the report's own transaction.
func New(pool *pgxpool.Pool, topic string, toEvent EventFunc) *Store {
	s := &Store{auditTopic: orgaudit.Topic}
	s.Store = pgdb.NewStore(pool, func(tx pgx.Tx) report.Tx { return txn{tx: tx, s: s} },
		outbox.Emitter(topic, toEvent, func(r report.Report) string { return r.CustomerID }))
	return s
}

type txn struct {
	tx pgx.Tx
	s  *Store
}

// SaveCustomer upserts the profile; a deletion is final (a late event
// never revives the customer).
func (t txn) SaveCustomer(ctx context.Context, c report.Customer) error {
	_, err := t.tx.Exec(ctx, `INSERT INTO customers (customer_id, org_id, env, first_name, last_name, phone, email,
		occupation, bvn_masked, nin_masked, passport_number, loan_id, loan_type, deleted)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
		ON CONFLICT (customer_id) DO UPDATE SET first_name = excluded.first_name, last_name = excluded.last_name,
		phone = excluded.phone, email = excluded.email, occupation = excluded.occupation, bvn_masked = excluded.bvn_masked,
		nin_masked = excluded.nin_masked, passport_number = excluded.passport_number, loan_id = excluded.loan_id,
		loan_type = excluded.loan_type, deleted = customers.deleted OR excluded.deleted
		WHERE customers.org_id = excluded.org_id AND customers.env = excluded.env`,
		c.ID, c.OrgID, c.Env, c.FirstName, c.LastName, c.Phone, c.Email, c.Occupation, c.BVN, c.NIN,
		c.PassportNumber, c.LoanID, c.LoanType, c.Deleted)
	return err
}

type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

func customerOf(ctx context.Context, q querier, orgID, env, id string) (report.Customer, error) {
	c := report.Customer{ID: id, OrgID: orgID, Env: env}
	err := q.QueryRow(ctx, `SELECT first_name, last_name, phone, email, occupation, bvn_masked, nin_masked,
		passport_number, loan_id, loan_type, deleted FROM customers WHERE customer_id = $1 AND org_id = $2 AND env = $3`,
		id, orgID, env).Scan(&c.FirstName, &c.LastName, &c.Phone, &c.Email, &c.Occupation, &c.BVN, &c.NIN,
		&c.PassportNumber, &c.LoanID, &c.LoanType, &c.Deleted)
	if pgdb.IsNoRows(err) {
		return c, report.ErrCustomerNotFound
	}
	return c, err
}

// CustomerOf implements report.Tx.
func (t txn) CustomerOf(ctx context.Context, orgID, env, id string) (report.Customer, error) {
	return customerOf(ctx, t.tx, orgID, env, id)
}

// NextVersion implements report.Tx: the customer's row is locked, so two
// outcomes of one customer rendered at once get distinct versions.
func (t txn) NextVersion(ctx context.Context, orgID, env, id string) (int, error) {
	if _, err := t.tx.Exec(ctx, `SELECT 1 FROM customers WHERE customer_id = $1 AND org_id = $2 AND env = $3 FOR UPDATE`,
		id, orgID, env); err != nil {
		return 0, err
	}
	var v int
	err := t.tx.QueryRow(ctx, `SELECT coalesce(max(version), 0) + 1 FROM reports WHERE org_id = $1 AND env = $2 AND customer_id = $3`,
		orgID, env, id).Scan(&v)
	return v, err
}

// SaveReport implements report.Tx.
func (t txn) SaveReport(ctx context.Context, r report.Report) error {
	_, err := t.tx.Exec(ctx, `INSERT INTO reports (id, customer_id, org_id, env, version, event_id, status, object_key,
		sha256, size, code, generated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
		r.ID, r.CustomerID, r.OrgID, r.Env, r.Version, r.EventID, r.Status, r.ObjectKey, r.SHA256, r.Size, r.Code, r.GeneratedAt)
	if err != nil {
		return err
	}
	return t.s.Emit(ctx, t.tx, r)
}

// Customer implements report.Repository.
func (s *Store) Customer(ctx context.Context, who report.Caller, id string) (report.Customer, error) {
	c, err := customerOf(ctx, s.Pool(), who.OrgID, who.Env, id)
	if err == nil && c.Deleted {
		return c, report.ErrCustomerNotFound
	}
	if _, ok := apperr.As(err); err != nil && !ok {
		return c, apperr.Internal(err)
	}
	return c, err
}

const cols = `id, customer_id, org_id, env, version, event_id, status, object_key, sha256, size, code, generated_at`

func scan(row pgx.Row) (report.Report, error) {
	var r report.Report
	err := row.Scan(&r.ID, &r.CustomerID, &r.OrgID, &r.Env, &r.Version, &r.EventID, &r.Status, &r.ObjectKey,
		&r.SHA256, &r.Size, &r.Code, &r.GeneratedAt)
	r.GeneratedAt = r.GeneratedAt.UTC()
	if pgdb.IsNoRows(err) {
		return r, report.ErrReportNotFound
	}
	if err != nil {
		return r, apperr.Internal(err)
	}
	return r, nil
}

// Latest implements report.Repository.
func (s *Store) Latest(ctx context.Context, who report.Caller, id string) (report.Report, error) {
	return scan(s.Pool().QueryRow(ctx, `SELECT `+cols+` FROM reports WHERE org_id = $1 AND env = $2 AND customer_id = $3
		ORDER BY version DESC LIMIT 1`, who.OrgID, who.Env, id))
}

// ByCode implements report.Repository.
func (s *Store) ByCode(ctx context.Context, code string) (report.Report, error) {
	return scan(s.Pool().QueryRow(ctx, `SELECT `+cols+` FROM reports WHERE code = $1`, code))
}

// CustomerDeleted implements report.Repository.
func (s *Store) CustomerDeleted(ctx context.Context, r report.Report) (bool, error) {
	var deleted bool
	err := s.Pool().QueryRow(ctx, `SELECT deleted FROM customers WHERE customer_id = $1 AND org_id = $2 AND env = $3`,
		r.CustomerID, r.OrgID, r.Env).Scan(&deleted)
	if pgdb.IsNoRows(err) {
		return false, nil // a report is rendered only for a customer known here
	}
	return deleted, err
}

// SaveOrganization implements report.Tx.
func (t txn) SaveOrganization(ctx context.Context, o report.Organization) error {
	_, err := t.tx.Exec(ctx, `INSERT INTO organizations (org_id, name, plan, version) VALUES ($1, $2, $3, $4)
		ON CONFLICT (org_id) DO UPDATE SET plan = excluded.plan, version = excluded.version,
		name = coalesce(nullif(excluded.name, ''), organizations.name)
		WHERE organizations.version < excluded.version`, o.ID, o.Name, o.Plan, o.Version)
	return err
}

// OrganizationName implements report.Tx.
func (t txn) OrganizationName(ctx context.Context, orgID string) (string, error) {
	var name string
	err := t.tx.QueryRow(ctx, `SELECT name FROM organizations WHERE org_id = $1`, orgID).Scan(&name)
	if pgdb.IsNoRows(err) {
		return "", nil
	}
	return name, err
}

// BrandToShow implements report.Tx.
func (t txn) BrandToShow(ctx context.Context, orgID, env string) (*report.Brand, error) {
	var b report.Brand
	err := t.tx.QueryRow(ctx, `SELECT b.display_name, b.accent, b.logo, b.updated_at FROM branding b
		JOIN organizations o ON o.org_id = b.org_id AND o.plan = $3 WHERE b.org_id = $1 AND b.env = $2`,
		orgID, env, report.PlanEnterprise).Scan(&b.DisplayName, &b.Accent, &b.Logo, &b.UpdatedAt)
	if pgdb.IsNoRows(err) {
		return nil, nil
	}
	return &b, err
}

// SaveBrand implements report.Repository. keepLogo keeps the logo already
// saved (none when there is none), in the same statement, so that two
// saves at once cannot lose it.
func (s *Store) SaveBrand(ctx context.Context, who report.Caller, b report.Brand, keepLogo bool, a report.Audit) (report.Brand, error) {
	var saved report.Brand
	m, err := orgaudit.Message(ctx, s.auditTopic, a.Action, a.Target, orgaudit.Done, a.Details)
	if err != nil {
		return saved, apperr.Internal(err)
	}
	err = s.Transact(ctx, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `INSERT INTO branding (org_id, env, display_name, accent, logo, updated_at)
			VALUES ($1, $2, $3, $4, CASE WHEN $7 THEN NULL ELSE $5::bytea END, $6) ON CONFLICT (org_id, env) DO UPDATE SET display_name = excluded.display_name,
			accent = excluded.accent, logo = CASE WHEN $7 THEN branding.logo ELSE excluded.logo END, updated_at = excluded.updated_at
			RETURNING display_name, accent, logo, updated_at`,
			who.OrgID, who.Env, b.DisplayName, b.Accent, b.Logo, b.UpdatedAt, keepLogo).Scan(&saved.DisplayName, &saved.Accent, &saved.Logo, &saved.UpdatedAt); err != nil {
			return err
		}
		return outbox.Add(ctx, tx, m)
	})
	return saved, err
}

// AuditOn sets the full (prefixed) name of the org audit topic that
// SaveBrand records on; unset, it is the unprefixed name.
func (s *Store) AuditOn(topic string) { s.auditTopic = topic }

// Brand implements report.Repository.
func (s *Store) Brand(ctx context.Context, who report.Caller) (report.Brand, error) {
	var b report.Brand
	err := s.Pool().QueryRow(ctx, `SELECT display_name, accent, logo, updated_at FROM branding WHERE org_id = $1 AND env = $2`,
		who.OrgID, who.Env).Scan(&b.DisplayName, &b.Accent, &b.Logo, &b.UpdatedAt)
	if pgdb.IsNoRows(err) {
		return b, report.ErrBrandNotSet
	}
	if err != nil {
		return b, apperr.Internal(err)
	}
	b.UpdatedAt = b.UpdatedAt.UTC()
	return b, nil
}
