package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/orgaudit"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/services/auth-billing/internal/account"
)

func (t *txn) Users(ctx context.Context, orgID string) ([]account.User, error) {
	return collect(ctx, t.tx, scanUser, `SELECT `+userCols+` FROM users WHERE org_id = $1 ORDER BY created_at, id`, orgID)
}

func (t *txn) UserInOrg(ctx context.Context, orgID, id string) (account.User, error) {
	u, err := scanUser(t.tx.QueryRow(ctx, `SELECT `+userCols+` FROM users WHERE id = $1 AND org_id = $2 FOR UPDATE`, id, orgID))
	return u, notFound(err, "Member")
}

func (t *txn) CountOwners(ctx context.Context, orgID string) (int, error) {
	var n int
	err := t.tx.QueryRow(ctx, `SELECT count(*) FROM users WHERE org_id = $1 AND role = 'owner'`, orgID).Scan(&n)
	return n, err
}

func (t *txn) SetUserRole(ctx context.Context, id string, role principal.MemberRole) error {
	_, err := t.tx.Exec(ctx, `UPDATE users SET role = $2 WHERE id = $1`, id, string(role))
	return err
}

func (t *txn) DeleteUser(ctx context.Context, id string) error {
	if _, err := t.tx.Exec(ctx, `DELETE FROM sessions WHERE user_id = $1`, id); err != nil {
		return err
	}
	_, err := t.tx.Exec(ctx, `DELETE FROM users WHERE id = $1`, id)
	return err
}

const invitationCols = `id, org_id, token_hash, email, role, invited_by, created_at, expires_at, accepted_at, revoked_at`

func scanInvitation(row pgx.Row) (account.Invitation, error) {
	var inv account.Invitation
	var role string
	err := row.Scan(&inv.ID, &inv.OrgID, &inv.Hash, &inv.Email, &role, &inv.InvitedBy, &inv.CreatedAt, &inv.ExpiresAt, &inv.AcceptedAt, &inv.RevokedAt)
	inv.Role = principal.MemberRole(role)
	return inv, err
}

func (t *txn) InsertInvitation(ctx context.Context, inv account.Invitation) error {
	_, err := t.tx.Exec(ctx, `INSERT INTO invitations (id, org_id, token_hash, email, role, invited_by, created_at, expires_at)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8)`, inv.ID, inv.OrgID, inv.Hash, inv.Email, string(inv.Role), inv.InvitedBy, inv.CreatedAt, inv.ExpiresAt)
	return err
}

func (t *txn) InvitationByHash(ctx context.Context, hash []byte, forUpdate bool) (account.Invitation, error) {
	q := `SELECT ` + invitationCols + ` FROM invitations WHERE token_hash = $1`
	if forUpdate {
		q += ` FOR UPDATE`
	}
	inv, err := scanInvitation(t.tx.QueryRow(ctx, q, hash))
	return inv, notFound(err, "Invitation")
}

func (t *txn) Invitation(ctx context.Context, orgID, id string, forUpdate bool) (account.Invitation, error) {
	q := `SELECT ` + invitationCols + ` FROM invitations WHERE id = $1 AND org_id = $2`
	if forUpdate {
		q += ` FOR UPDATE`
	}
	inv, err := scanInvitation(t.tx.QueryRow(ctx, q, id, orgID))
	return inv, notFound(err, "Invitation")
}

func (t *txn) PendingInvitations(ctx context.Context, orgID string, now time.Time) ([]account.Invitation, error) {
	return collect(ctx, t.tx, scanInvitation, `SELECT `+invitationCols+` FROM invitations
		WHERE org_id = $1 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > $2
		ORDER BY created_at DESC, id DESC`, orgID, now)
}

func (t *txn) UpdateInvitation(ctx context.Context, inv account.Invitation) error {
	_, err := t.tx.Exec(ctx, `UPDATE invitations SET accepted_at = $2, revoked_at = $3 WHERE id = $1`, inv.ID, inv.AcceptedAt, inv.RevokedAt)
	return err
}

func (t *txn) OrgAudit(ctx context.Context, orgID, env string, a orgaudit.Action) error {
	return orgaudit.Add(ctx, t.tx, t.s.orgAuditTopic, orgID, env, a)
}

func (t *txn) OrgAuditLog(ctx context.Context, f account.OrgAuditFilter) ([]account.OrgAuditEntry, error) {
	// The label falls back to the user's or key's current one for rows
	// stored before it was known (an action consumed before its actor).
	q := `SELECT a.id, a.org_id, a.env, a.actor_type, a.actor_id,
			coalesce(nullif(a.actor_label, ''), u.email, k.display_prefix, ''), a.actor_role,
			a.action, a.target, a.outcome, a.details, a.ip, a.at
		FROM org_audit a
		LEFT JOIN users u ON a.actor_type = 'user' AND u.id = a.actor_id AND u.org_id = a.org_id
		LEFT JOIN api_keys k ON a.actor_type = 'key' AND k.id = a.actor_id AND k.org_id = a.org_id
		WHERE a.org_id = $1`
	args := []any{f.OrgID}
	arg := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	if f.ActorID != "" {
		q += ` AND a.actor_id = ` + arg(f.ActorID)
	}
	if f.Action != "" {
		q += ` AND starts_with(a.action, ` + arg(f.Action) + `)`
	}
	if f.Outcome != "" {
		q += ` AND a.outcome = ` + arg(f.Outcome)
	}
	if f.Env != "" {
		q += ` AND a.env = ` + arg(f.Env)
	}
	if f.Since != nil {
		q += ` AND a.at >= ` + arg(*f.Since)
	}
	if f.Until != nil {
		q += ` AND a.at < ` + arg(*f.Until)
	}
	if f.After != nil {
		q += ` AND (a.at, a.id) < (` + arg(f.After.At) + `, ` + arg(f.After.ID) + `)`
	}
	q += ` ORDER BY a.at DESC, a.id DESC LIMIT ` + arg(f.Limit)
	rows, err := t.tx.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []account.OrgAuditEntry{}
	for rows.Next() {
		var e account.OrgAuditEntry
		var details []byte
		if err := rows.Scan(&e.ID, &e.OrgID, &e.Env, &e.ActorType, &e.ActorID, &e.ActorLabel, &e.ActorRole,
			&e.Action, &e.Target, &e.Outcome, &details, &e.IP, &e.At); err != nil {
			return nil, err
		}
		if err := json.Unmarshal(details, &e.Details); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// InsertOrgAudit stores one org.action event in the organization's audit
// log, in the consumer's inbox transaction, with the actor's email or
// key prefix as this service knows them now. The event's id is the row's
// key, so a redelivered event (even past the inbox) is stored once.
func InsertOrgAudit(ctx context.Context, tx pgx.Tx, eventID, orgID, env string, a orgaudit.Action) error {
	if eventID == "" || orgID == "" || a.ActorID == "" || a.Action == "" || a.At.IsZero() ||
		(a.ActorType != orgaudit.ActorUser && a.ActorType != orgaudit.ActorKey) ||
		(a.Outcome != orgaudit.Done && a.Outcome != orgaudit.Refused) {
		return apperr.Validation(apperr.Detail{Field: "data", Message: "an org action needs an event id, orgId, actorType, actorId, action, outcome and at"})
	}
	details := a.Details
	if details == nil {
		details = map[string]any{}
	}
	raw, err := json.Marshal(details)
	if err != nil {
		return apperr.Validation(apperr.Detail{Field: "details", Message: "must be a JSON object"})
	}
	_, err = tx.Exec(ctx, `INSERT INTO org_audit (id, org_id, env, actor_type, actor_id, actor_label, actor_role, action, target, outcome, details, ip, at)
		VALUES ($1, $2, $3, $4, $5,
			coalesce(CASE $4 WHEN 'user' THEN (SELECT email FROM users WHERE id = $5 AND org_id = $2)
				ELSE (SELECT display_prefix FROM api_keys WHERE id = $5 AND org_id = $2) END, ''),
			$6, $7, $8, $9, $10, $11, $12)
		ON CONFLICT (id) DO NOTHING`,
		eventID, orgID, env, a.ActorType, a.ActorID, a.MemberRole, a.Action, a.Target, a.Outcome, raw, a.IP, a.At)
	return err
}
