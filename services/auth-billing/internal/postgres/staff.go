package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/pgdb"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/pkg/staffaudit"
	"github.com/kycfield/kyc/services/auth-billing/internal/account"
)

const memberCols = `id, email, name, role, password_hash, totp_secret, totp_last_step, disabled_at, created_at`

func scanMember(row pgx.Row) (account.Member, error) {
	var m account.Member
	var role string
	err := row.Scan(&m.ID, &m.Email, &m.Name, &role, &m.PasswordHash, &m.TOTPSecret, &m.TOTPLastStep, &m.DisabledAt, &m.CreatedAt)
	m.Role = principal.Role(role)
	return m, err
}

func (t *txn) InsertStaff(ctx context.Context, m account.Member) error {
	_, err := t.tx.Exec(ctx, `INSERT INTO staff (id, email, name, role, created_at) VALUES ($1,$2,$3,$4,$5)`,
		m.ID, m.Email, m.Name, string(m.Role), m.CreatedAt)
	if _, dup := pgdb.UniqueViolation(err); dup {
		return account.ErrStaffEmailTaken
	}
	return err
}

func (t *txn) Member(ctx context.Context, id string, forUpdate bool) (account.Member, error) {
	q := `SELECT ` + memberCols + ` FROM staff WHERE id = $1`
	if forUpdate {
		q += ` FOR UPDATE`
	}
	m, err := scanMember(t.tx.QueryRow(ctx, q, id))
	return m, notFound(err, "Staff member")
}

func (t *txn) MemberByEmail(ctx context.Context, email string) (account.Member, error) {
	m, err := scanMember(t.tx.QueryRow(ctx, `SELECT `+memberCols+` FROM staff WHERE email = $1`, email))
	return m, notFound(err, "Staff member")
}

func (t *txn) Members(ctx context.Context) ([]account.Member, error) {
	return collect(ctx, t.tx, scanMember, `SELECT `+memberCols+` FROM staff ORDER BY created_at, id`)
}

func (t *txn) UpdateMember(ctx context.Context, m account.Member) error {
	_, err := t.tx.Exec(ctx, `UPDATE staff SET password_hash = $2, totp_secret = $3, totp_last_step = $4, disabled_at = $5 WHERE id = $1`,
		m.ID, m.PasswordHash, m.TOTPSecret, m.TOTPLastStep, m.DisabledAt)
	return err
}

func (t *txn) InsertStaffEnrolment(ctx context.Context, e account.StaffEnrolment) error {
	_, err := t.tx.Exec(ctx, `INSERT INTO staff_enrolments (token_hash, staff_id, created_at, expires_at) VALUES ($1,$2,$3,$4)`,
		e.Hash, e.StaffID, e.CreatedAt, e.ExpiresAt)
	return err
}

func (t *txn) StaffEnrolment(ctx context.Context, hash []byte) (account.StaffEnrolment, error) {
	var e account.StaffEnrolment
	err := t.tx.QueryRow(ctx, `SELECT token_hash, staff_id, created_at, expires_at, used_at FROM staff_enrolments
		WHERE token_hash = $1 FOR UPDATE`, hash).Scan(&e.Hash, &e.StaffID, &e.CreatedAt, &e.ExpiresAt, &e.UsedAt)
	return e, notFound(err, "Enrolment")
}

func (t *txn) UseStaffEnrolment(ctx context.Context, hash []byte, at time.Time) error {
	_, err := t.tx.Exec(ctx, `UPDATE staff_enrolments SET used_at = $2 WHERE token_hash = $1`, hash, at)
	return err
}

func (t *txn) InsertStaffSession(ctx context.Context, s account.StaffSession) error {
	_, err := t.tx.Exec(ctx, `INSERT INTO staff_sessions (token_hash, staff_id, csrf_token, created_at, expires_at) VALUES ($1,$2,$3,$4,$5)`,
		s.Hash, s.StaffID, s.CSRFToken, s.CreatedAt, s.ExpiresAt)
	return err
}

func (t *txn) StaffSessionByHash(ctx context.Context, hash []byte) (account.StaffSession, error) {
	var s account.StaffSession
	err := t.tx.QueryRow(ctx, `SELECT token_hash, staff_id, csrf_token, created_at, expires_at FROM staff_sessions WHERE token_hash = $1`, hash).
		Scan(&s.Hash, &s.StaffID, &s.CSRFToken, &s.CreatedAt, &s.ExpiresAt)
	return s, notFound(err, "Session")
}

func (t *txn) DeleteStaffSession(ctx context.Context, hash []byte) error {
	_, err := t.tx.Exec(ctx, `DELETE FROM staff_sessions WHERE token_hash = $1`, hash)
	return err
}

func (t *txn) DeleteStaffSessions(ctx context.Context, staffID string) error {
	_, err := t.tx.Exec(ctx, `DELETE FROM staff_sessions WHERE staff_id = $1`, staffID)
	return err
}

func (t *txn) Audit(ctx context.Context, action, target, orgID string, details map[string]any) error {
	return staffaudit.Record(ctx, t.tx, t.s.auditTopic, action, target, orgID, details)
}

func (t *txn) AuditLog(ctx context.Context, f account.AuditFilter) ([]account.AuditEntry, error) {
	q := `SELECT id, actor_id, actor_name, actor_role, action, target, org_id, details, ip, at FROM staff_audit WHERE true`
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	if f.ActorID != "" {
		q += ` AND actor_id = ` + arg(f.ActorID)
	}
	if f.Action != "" {
		// starts_with uses no pattern characters, so an action with % or _
		// matches literally.
		q += ` AND starts_with(action, ` + arg(f.Action) + `)`
	}
	if f.OrgID != "" {
		q += ` AND org_id = ` + arg(f.OrgID)
	}
	if f.Since != nil {
		q += ` AND at >= ` + arg(*f.Since)
	}
	if f.Until != nil {
		q += ` AND at < ` + arg(*f.Until)
	}
	if f.After != nil {
		q += ` AND (at, id) < (` + arg(f.After.At) + `, ` + arg(f.After.ID) + `)`
	}
	q += ` ORDER BY at DESC, id DESC LIMIT ` + arg(f.Limit)
	rows, err := t.tx.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []account.AuditEntry{}
	for rows.Next() {
		var e account.AuditEntry
		var details []byte
		if err := rows.Scan(&e.ID, &e.ActorID, &e.ActorName, &e.Role, &e.Action, &e.Target, &e.OrgID, &details, &e.IP, &e.At); err != nil {
			return nil, err
		}
		if err := json.Unmarshal(details, &e.Details); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// InsertAudit stores one staff.action event in the audit log, in the
// consumer's inbox transaction; the event's id is the row's key, so a
// redelivered event (even past the inbox) is stored once.
func InsertAudit(ctx context.Context, tx pgx.Tx, eventID string, a staffaudit.Action) error {
	if eventID == "" || a.ActorID == "" || a.Action == "" || a.At.IsZero() {
		return apperr.Validation(apperr.Detail{Field: "data", Message: "a staff action needs an event id, actorId, action and at"})
	}
	details := a.Details
	if details == nil {
		details = map[string]any{}
	}
	raw, err := json.Marshal(details)
	if err != nil {
		return apperr.Validation(apperr.Detail{Field: "details", Message: "must be a JSON object"})
	}
	_, err = tx.Exec(ctx, `INSERT INTO staff_audit (id, actor_id, actor_name, actor_role, action, target, org_id, details, ip, at)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10) ON CONFLICT (id) DO NOTHING`,
		eventID, a.ActorID, a.ActorName, a.Role, a.Action, a.Target, a.OrgID, raw, a.IP, a.At)
	return err
}
