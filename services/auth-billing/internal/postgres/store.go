// Package postgres is auth-billing's repository: SQL written out, database
// errors turned into domain errors, events written to the outbox in the
// same transaction as the rows they describe.
package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/outbox"
	"github.com/kycfield/kyc/pkg/pgdb"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/services/auth-billing/internal/account"
)

// Store implements account.Store.
type Store struct {
	*pgdb.Store[account.Tx, account.Change]
	auditTopic    string
	orgAuditTopic string
}

// New returns a Store publishing account events to topic (full name),
// keyed by organization, staff actions to auditTopic (full name of the
// staff-audit topic) and members' actions to orgAuditTopic (full name of
// the org-audit topic).
func New(pool *pgxpool.Pool, topic, auditTopic, orgAuditTopic string) *Store {
	s := &Store{auditTopic: auditTopic, orgAuditTopic: orgAuditTopic}
	s.Store = pgdb.NewStore(pool, func(tx pgx.Tx) account.Tx { return &txn{tx: tx, s: s} },
		outbox.Emitter(topic, toEvent, func(c account.Change) string { return c.OrgID }))
	return s
}

func toEvent(c account.Change) (event.Event, error) { return event.New(c.Type, c.OrgID, c.Env, c.Data) }

type txn struct {
	tx pgx.Tx
	s  *Store
}

func notFound(err error, what string) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return apperr.NotFound(what)
	}
	return err
}

func (t *txn) InsertOrg(ctx context.Context, o account.Org) error {
	_, err := t.tx.Exec(ctx, `INSERT INTO organizations (id, name, plan, version, created_at, updated_at, review_policy, sla_hours)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8)`, o.ID, o.Name, o.Plan, o.Version, o.CreatedAt, o.UpdatedAt, o.ReviewPolicy, o.SLAHours)
	return err
}

const orgCols = `id, name, plan, version, created_at, updated_at, review_policy, sla_hours`

func scanOrg(row pgx.Row) (account.Org, error) {
	var o account.Org
	err := row.Scan(&o.ID, &o.Name, &o.Plan, &o.Version, &o.CreatedAt, &o.UpdatedAt, &o.ReviewPolicy, &o.SLAHours)
	return o, err
}

func (t *txn) Orgs(ctx context.Context, after string, limit int) ([]account.Org, error) {
	return collect(ctx, t.tx, scanOrg, `SELECT `+orgCols+` FROM organizations WHERE ($1 = '' OR id < $1) ORDER BY id DESC LIMIT $2`, after, limit)
}

func (t *txn) Org(ctx context.Context, id string, forUpdate bool) (account.Org, error) {
	q := `SELECT ` + orgCols + ` FROM organizations WHERE id = $1`
	if forUpdate {
		q += ` FOR UPDATE`
	}
	o, err := scanOrg(t.tx.QueryRow(ctx, q, id))
	return o, notFound(err, "Organization")
}

func (t *txn) UpdateOrg(ctx context.Context, o account.Org) error {
	_, err := t.tx.Exec(ctx, `UPDATE organizations SET name=$2, plan=$3, version=$4, updated_at=$5, review_policy=$6, sla_hours=$7 WHERE id=$1`,
		o.ID, o.Name, o.Plan, o.Version, o.UpdatedAt, o.ReviewPolicy, o.SLAHours)
	return err
}

func (t *txn) StartPlanPeriod(ctx context.Context, orgID, plan string, at time.Time) error {
	if _, err := t.tx.Exec(ctx, `UPDATE plan_periods SET ended_at = $2 WHERE org_id = $1 AND ended_at IS NULL`, orgID, at); err != nil {
		return err
	}
	_, err := t.tx.Exec(ctx, `INSERT INTO plan_periods (org_id, plan, started_at) VALUES ($1,$2,$3)`, orgID, plan, at)
	return err
}

const keyCols = `id, org_id, env, scopes, name, display_prefix, secret_hash, created_at, last_used_at, revoked_at, expires_at, coalesce(replaced_by, ''), version`

func scanKey(row pgx.Row) (account.Key, error) {
	var k account.Key
	var env string
	err := row.Scan(&k.ID, &k.OrgID, &env, &k.Scopes, &k.Name, &k.Prefix, &k.Hash, &k.CreatedAt, &k.LastUsedAt,
		&k.RevokedAt, &k.ExpiresAt, &k.ReplacedBy, &k.Version)
	k.Env = principal.Env(env)
	return k, err
}

func (t *txn) InsertKey(ctx context.Context, k account.Key) error {
	_, err := t.tx.Exec(ctx, `INSERT INTO api_keys (id, org_id, env, scopes, name, display_prefix, secret_hash, created_at, version)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9)`, k.ID, k.OrgID, string(k.Env), k.Scopes, k.Name, k.Prefix, k.Hash, k.CreatedAt, k.Version)
	return err
}

func (t *txn) Key(ctx context.Context, orgID, id string, forUpdate bool) (account.Key, error) {
	q := `SELECT ` + keyCols + ` FROM api_keys WHERE id = $1 AND ($2 = '' OR org_id = $2)`
	if forUpdate {
		q += ` FOR UPDATE`
	}
	k, err := scanKey(t.tx.QueryRow(ctx, q, id, orgID))
	return k, notFound(err, "API key")
}

func (t *txn) KeyByHash(ctx context.Context, hash []byte) (account.Key, error) {
	k, err := scanKey(t.tx.QueryRow(ctx, `SELECT `+keyCols+` FROM api_keys WHERE secret_hash = $1`, hash))
	return k, notFound(err, "API key")
}

func (t *txn) UpdateKey(ctx context.Context, k account.Key) error {
	_, err := t.tx.Exec(ctx, `UPDATE api_keys SET revoked_at=$2, expires_at=$3, replaced_by=nullif($4, ''), version=$5 WHERE id=$1`,
		k.ID, k.RevokedAt, k.ExpiresAt, k.ReplacedBy, k.Version)
	return err
}

func (t *txn) Keys(ctx context.Context, orgID string) ([]account.Key, error) {
	return collect(ctx, t.tx, scanKey, `SELECT `+keyCols+` FROM api_keys WHERE org_id = $1 ORDER BY created_at DESC, id DESC`, orgID)
}

func (t *txn) InsertUser(ctx context.Context, u account.User) error {
	_, err := t.tx.Exec(ctx, `INSERT INTO users (id, org_id, email, name, role, password_hash, created_at) VALUES ($1,$2,$3,$4,$5,$6,$7)`,
		u.ID, u.OrgID, u.Email, u.Name, string(u.Role), u.PasswordHash, u.CreatedAt)
	if _, dup := pgdb.UniqueViolation(err); dup {
		return apperr.New(apperr.KindConflict, account.CodeEmailTaken, "An account with this email already exists; log in instead")
	}
	return err
}

func (t *txn) UserByEmail(ctx context.Context, email string) (account.User, error) {
	return t.user(ctx, `email = $1`, email)
}

func (t *txn) User(ctx context.Context, id string) (account.User, error) {
	return t.user(ctx, `id = $1`, id)
}

const userCols = `id, org_id, email, name, role, password_hash, created_at, totp_secret, totp_enabled, totp_last_step`

func scanUser(row pgx.Row) (account.User, error) {
	var u account.User
	var role string
	err := row.Scan(&u.ID, &u.OrgID, &u.Email, &u.Name, &role, &u.PasswordHash, &u.CreatedAt, &u.TOTP.Secret, &u.TOTP.Enabled, &u.TOTP.LastStep)
	u.Role = principal.MemberRole(role)
	return u, err
}

func (t *txn) user(ctx context.Context, where string, arg any) (account.User, error) {
	u, err := scanUser(t.tx.QueryRow(ctx, `SELECT `+userCols+` FROM users WHERE `+where, arg))
	return u, notFound(err, "User")
}

func (t *txn) SetTOTP(ctx context.Context, userID string, o account.TOTP) error {
	_, err := t.tx.Exec(ctx, `UPDATE users SET totp_secret = $2, totp_enabled = $3, totp_last_step = $4 WHERE id = $1`,
		userID, o.Secret, o.Enabled, o.LastStep)
	return err
}

func (t *txn) InsertSession(ctx context.Context, s account.Session) error {
	_, err := t.tx.Exec(ctx, `INSERT INTO sessions (token_hash, user_id, org_id, csrf_token, created_at, expires_at) VALUES ($1,$2,$3,$4,$5,$6)`,
		s.Hash, s.UserID, s.OrgID, s.CSRFToken, s.CreatedAt, s.ExpiresAt)
	return err
}

func (t *txn) SessionByHash(ctx context.Context, hash []byte) (account.Session, error) {
	var s account.Session
	var role string
	err := t.tx.QueryRow(ctx, `SELECT s.token_hash, s.user_id, s.org_id, s.csrf_token, s.created_at, s.expires_at, u.role
		FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.token_hash = $1`, hash).
		Scan(&s.Hash, &s.UserID, &s.OrgID, &s.CSRFToken, &s.CreatedAt, &s.ExpiresAt, &role)
	s.Role = principal.MemberRole(role)
	return s, notFound(err, "Session")
}

func (t *txn) DeleteSession(ctx context.Context, hash []byte) error {
	_, err := t.tx.Exec(ctx, `DELETE FROM sessions WHERE token_hash = $1`, hash)
	return err
}

func (t *txn) Emit(ctx context.Context, c account.Change) error { return t.s.Emit(ctx, t.tx, c) }

// collect runs a query in tx and scans every row with scan (the row
// scanners the single-row reads use), into a slice that is never nil.
func collect[T any](ctx context.Context, tx pgx.Tx, scan func(pgx.Row) (T, error), sql string, args ...any) ([]T, error) {
	rows, err := tx.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (T, error) { return scan(r) })
}
