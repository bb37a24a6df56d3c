package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/pgdb"
	"github.com/kycfield/kyc/pkg/staffaudit"
	"github.com/kycfield/kyc/services/verification/internal/verification"
)

// AuditOn sets the full (prefixed) name of the staff audit topic that
// Tx.Audit writes to; unset, it is the unprefixed name.
func (s *Store) AuditOn(topic string) { s.auditTopic = topic }

// Audit implements verification.Tx: the action goes to the outbox in the
// change's transaction.
func (t *txn) Audit(ctx context.Context, action, target, orgID string, details map[string]any) error {
	topic := t.s.auditTopic
	if topic == "" {
		topic = event.TopicStaffAudit
	}
	return staffaudit.Record(ctx, t.tx, topic, action, target, orgID, details)
}

// Held implements verification.ReviewReads: the partial index
// jobs_in_review serves the order and the cursor.
func (s *Store) Held(ctx context.Context, after verification.HeldCursor, limit int) ([]verification.Held, error) {
	rows, err := s.Pool().Query(ctx, `SELECT j.*, coalesce(o.name, ''), c.first_name || ' ' || c.last_name, coalesce(a.name, '')
		FROM (SELECT `+jobCols+`, held_at FROM jobs WHERE status = 'IN_REVIEW' AND (held_at, address_id) > ($1, $2)
			ORDER BY held_at, address_id LIMIT $3) j
		JOIN cases c ON c.customer_id = j.customer_id
		LEFT JOIN org_settings o ON o.org_id = j.org_id
		LEFT JOIN agents a ON a.id = j.hold->>'agentId'
		WHERE c.deleted_at IS NULL
		ORDER BY j.held_at, j.address_id`, after.Since, after.AddressID, limit)
	if err != nil {
		return nil, pgdb.Translate(err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (verification.Held, error) {
		var h verification.Held
		var heldAt time.Time
		j, err := scanJobWith(r, &heldAt, &h.OrgName, &h.CustomerName, &h.AgentName)
		h.Job = j
		return h, err
	})
	return out, pgdb.Translate(err)
}

// HeldCase implements verification.ReviewReads.
func (s *Store) HeldCase(ctx context.Context, addressID string) (verification.Case, verification.OrgSettings, error) {
	var c verification.Case
	o := verification.OrgSettings{}
	err := s.snapshot(ctx, func(tx pgx.Tx) (err error) {
		c, err = scanCase(tx.QueryRow(ctx, `SELECT `+prefixed("c.", caseCols)+` FROM cases c JOIN jobs j ON j.customer_id = c.customer_id
			WHERE j.address_id = $1 AND j.status = 'IN_REVIEW' AND c.deleted_at IS NULL`, addressID))
		if err != nil {
			return err
		}
		if o, err = (&txn{tx: tx, s: s}).OrgSettings(ctx, c.OrgID); err != nil {
			return err
		}
		return jobs(ctx, tx, &c, false, true)
	})
	if apperr.IsCode(err, apperr.CodeNotFound) {
		err = verification.ErrReviewNotFound
	}
	return c, o, err
}

// HeldPhoto implements verification.ReviewReads.
func (s *Store) HeldPhoto(ctx context.Context, addressID, photoID string) (verification.Photo, error) {
	p, err := scanPhoto(s.Pool().QueryRow(ctx, `SELECT `+prefixed("p.", photoCols)+`
		FROM photos p JOIN jobs j ON j.address_id = p.address_id JOIN cases c ON c.customer_id = p.customer_id
		WHERE p.id = $1 AND p.address_id = $2 AND j.status = 'IN_REVIEW' AND c.deleted_at IS NULL`, photoID, addressID))
	if pgdb.IsNoRows(err) {
		return p, verification.ErrPhotoNotFound
	}
	return p, pgdb.Translate(err)
}

// AgentRecord implements verification.ReviewReads.
func (s *Store) AgentRecord(ctx context.Context, agentID string, since time.Time) (verification.AgentRecord, error) {
	var rec verification.AgentRecord
	err := s.snapshot(ctx, func(tx pgx.Tx) (err error) {
		if rec.FieldAgent, err = scanAgent(tx.QueryRow(ctx, `SELECT `+agentCols+` FROM agents a WHERE a.id = $1`, agentID)); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT outcome, count(*) FROM visit_trails WHERE agent_id = $1 AND completed_at >= $2
			GROUP BY outcome`, agentID, since)
		if err != nil {
			return err
		}
		rec.Visits = map[string]int{}
		var outcome string
		var n int
		_, err = pgx.ForEachRow(rows, []any{&outcome, &n}, func() error {
			rec.Visits[outcome] = n
			return nil
		})
		return err
	})
	return rec, err
}
