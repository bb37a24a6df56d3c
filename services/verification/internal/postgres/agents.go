package postgres

import (
	"context"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/objstore/pending"
	"github.com/kycfield/kyc/pkg/pgdb"
	"github.com/kycfield/kyc/services/verification/internal/verification"
)

// openTasks counts an agent's ASSIGNED and IN_PROGRESS jobs.
const agentCols = `a.id, a.name, a.phone, a.states, a.lgas, a.active, a.created_at, a.updated_at,
	(SELECT count(*) FROM jobs j WHERE j.agent_id = a.id AND j.status IN ('ASSIGNED', 'IN_PROGRESS')), a.last_seen_at`

func scanAgent(row pgx.Row) (verification.FieldAgent, error) {
	var a verification.FieldAgent
	err := row.Scan(&a.ID, &a.Name, &a.Phone, &a.States, &a.LGAs, &a.Active, &a.CreatedAt, &a.UpdatedAt, &a.OpenTasks, &a.LastSeen)
	if pgdb.IsNoRows(err) {
		return a, verification.ErrAgentNotFound
	}
	return a, err
}

func prefixed(prefix, cols string) string {
	parts := strings.Split(cols, ",")
	for i, p := range parts {
		parts[i] = prefix + strings.TrimSpace(p)
	}
	return strings.Join(parts, ", ")
}

func (t *txn) InsertAgent(ctx context.Context, a verification.FieldAgent) error {
	_, err := t.tx.Exec(ctx, `INSERT INTO agents (id, name, phone, states, lgas, active, created_at, updated_at)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8)`, a.ID, a.Name, a.Phone, a.States, orEmpty(a.LGAs), a.Active, a.CreatedAt, a.UpdatedAt)
	return phoneTaken(err)
}

// phoneTaken turns the unique phone's violation into the caller's error.
func phoneTaken(err error) error {
	if c, ok := pgdb.UniqueViolation(err); ok && c == "agents_phone_key" {
		return apperr.Validation(apperr.Detail{Field: "phone", Message: "another agent has this phone number"})
	}
	return err
}

func (t *txn) UpdateAgent(ctx context.Context, a verification.FieldAgent) error {
	_, err := t.tx.Exec(ctx, `UPDATE agents SET active = $2, updated_at = $3 WHERE id = $1`, a.ID, a.Active, a.UpdatedAt)
	return err
}

func (t *txn) Agent(ctx context.Context, id string) (verification.FieldAgent, error) {
	return scanAgent(t.tx.QueryRow(ctx, `SELECT `+agentCols+` FROM agents a WHERE a.id = $1 FOR UPDATE OF a`, id))
}

func (t *txn) AgentByPhone(ctx context.Context, phone string) (verification.FieldAgent, error) {
	return scanAgent(t.tx.QueryRow(ctx, `SELECT `+agentCols+` FROM agents a WHERE a.phone = $1 FOR UPDATE OF a`, phone))
}

func (t *txn) ActiveAgents(ctx context.Context) ([]verification.FieldAgent, error) {
	rows, err := t.tx.Query(ctx, `SELECT `+agentCols+` FROM agents a WHERE a.active ORDER BY a.created_at, a.id`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (verification.FieldAgent, error) { return scanAgent(r) })
}

func (t *txn) AgentJobs(ctx context.Context, agentID string) ([]verification.Job, error) {
	rows, err := t.tx.Query(ctx, `SELECT `+jobCols+` FROM jobs WHERE agent_id = $1 AND status IN ('ASSIGNED', 'IN_PROGRESS')`, agentID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (verification.Job, error) { return scanJob(r) })
}

func (t *txn) WaitingLive(ctx context.Context, limit int) ([]verification.Waiting, error) {
	rows, err := t.tx.Query(ctx, `SELECT customer_id, address_id FROM jobs WHERE env = 'live' AND status = 'PENDING'
		ORDER BY created_at LIMIT $1`, limit)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (verification.Waiting, error) {
		var w verification.Waiting
		return w, r.Scan(&w.CustomerID, &w.AddressID)
	})
}

func (t *txn) CustomerOf(ctx context.Context, addressID string) (string, error) {
	var id string
	err := t.tx.QueryRow(ctx, `SELECT customer_id FROM jobs WHERE address_id = $1`, addressID).Scan(&id)
	if pgdb.IsNoRows(err) {
		return "", verification.ErrTaskNotFound
	}
	return id, err
}

func (t *txn) PutCode(ctx context.Context, agentID string, hash []byte, expires time.Time) error {
	_, err := t.tx.Exec(ctx, `INSERT INTO agent_codes (agent_id, code_hash, expires_at) VALUES ($1, $2, $3)
		ON CONFLICT (agent_id) DO UPDATE SET code_hash = EXCLUDED.code_hash, expires_at = EXCLUDED.expires_at, tries = 0, used_at = NULL`,
		agentID, hash, expires)
	return err
}

func (t *txn) UseCode(ctx context.Context, agentID string, hash []byte, now time.Time, maxTries int) (bool, error) {
	var ok bool
	err := t.tx.QueryRow(ctx, `UPDATE agent_codes SET
			used_at = CASE WHEN code_hash = $2 THEN $3 ELSE used_at END,
			tries = CASE WHEN code_hash = $2 THEN tries ELSE tries + 1 END
		WHERE agent_id = $1 AND used_at IS NULL AND expires_at > $3 AND tries < $4
		RETURNING code_hash = $2`, agentID, hash, now, maxTries).Scan(&ok)
	if pgdb.IsNoRows(err) {
		return false, nil
	}
	return ok, err
}

func (t *txn) PutSession(ctx context.Context, tokenHash []byte, agentID string, expires time.Time) error {
	_, err := t.tx.Exec(ctx, `INSERT INTO agent_sessions (token_hash, agent_id, expires_at) VALUES ($1, $2, $3)`, tokenHash, agentID, expires)
	return err
}

func (t *txn) EndSession(ctx context.Context, tokenHash []byte) error {
	_, err := t.tx.Exec(ctx, `DELETE FROM agent_sessions WHERE token_hash = $1`, tokenHash)
	return err
}

func (t *txn) EndSessions(ctx context.Context, agentID string) error {
	_, err := t.tx.Exec(ctx, `DELETE FROM agent_sessions WHERE agent_id = $1`, agentID)
	return err
}

func (t *txn) Recall(ctx context.Context, agentID, key string) (string, bool, error) {
	var fp string
	err := t.tx.QueryRow(ctx, `SELECT fingerprint FROM agent_calls WHERE agent_id = $1 AND key = $2`, agentID, key).Scan(&fp)
	if pgdb.IsNoRows(err) {
		return "", false, nil
	}
	return fp, err == nil, err
}

func (t *txn) Remember(ctx context.Context, agentID, key, fingerprint string) error {
	_, err := t.tx.Exec(ctx, `INSERT INTO agent_calls (agent_id, key, fingerprint) VALUES ($1, $2, $3)`, agentID, key, fingerprint)
	return err
}

// Agents lists every agent.
func (s *Store) Agents(ctx context.Context) ([]verification.FieldAgent, error) {
	rows, err := s.Pool().Query(ctx, `SELECT `+agentCols+` FROM agents a ORDER BY a.created_at, a.id`)
	if err != nil {
		return nil, pgdb.Translate(err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (verification.FieldAgent, error) { return scanAgent(r) })
	return out, pgdb.Translate(err)
}

// AgentBySession returns the active agent of an unexpired session.
func (s *Store) AgentBySession(ctx context.Context, tokenHash []byte, now time.Time) (verification.FieldAgent, error) {
	a, err := scanAgent(s.Pool().QueryRow(ctx, `SELECT `+agentCols+` FROM agents a JOIN agent_sessions s ON s.agent_id = a.id
		WHERE s.token_hash = $1 AND s.expires_at > $2 AND a.active`, tokenHash, now))
	if apperr.IsCode(err, apperr.CodeNotFound) {
		return a, verification.ErrNoSession
	}
	return a, pgdb.Translate(err)
}

// Tasks lists an agent's open jobs with their customer, due re-visits
// first, then oldest first.
func (s *Store) Tasks(ctx context.Context, agentID string) ([]verification.Task, error) {
	rows, err := s.Pool().Query(ctx, `SELECT j.*, c.first_name || ' ' || c.last_name, c.phone,
			(SELECT count(*) FROM photos p WHERE p.address_id = j.address_id)
		FROM (SELECT `+jobCols+` FROM jobs WHERE agent_id = $1 AND status IN ('ASSIGNED', 'IN_PROGRESS')) j
		JOIN cases c ON c.customer_id = j.customer_id
		WHERE c.deleted_at IS NULL
		ORDER BY j.due_at NULLS LAST, j.created_at, j.address_id`, agentID)
	if err != nil {
		return nil, pgdb.Translate(err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (verification.Task, error) {
		var t verification.Task
		j, err := scanJobWith(r, &t.CustomerName, &t.CustomerPhone, &t.PhotoCount)
		t.Job = j
		return t, err
	})
	return out, pgdb.Translate(err)
}

// Announce implements verification.Store.
func (s *Store) Announce(ctx context.Context, key string) error {
	return pending.Begin(ctx, s.Pool(), key)
}

// PhotoByKey reads the photo an agent stored with an idempotency key.
func (s *Store) PhotoByKey(ctx context.Context, addressID, key string) (verification.Photo, error) {
	p, err := scanPhoto(s.Pool().QueryRow(ctx, `SELECT `+photoCols+` FROM photos WHERE address_id = $1 AND idem_key = $2`, addressID, key))
	if pgdb.IsNoRows(err) {
		return p, verification.ErrPhotoNotFound
	}
	return p, pgdb.Translate(err)
}

// TaskStatus implements verification.Store.
func (s *Store) TaskStatus(ctx context.Context, agentID, addressID string) (string, error) {
	var status string
	err := s.Pool().QueryRow(ctx, `SELECT j.status FROM jobs j JOIN cases c ON c.customer_id = j.customer_id
		WHERE j.address_id = $1 AND j.agent_id = $2 AND c.deleted_at IS NULL`, addressID, agentID).Scan(&status)
	if pgdb.IsNoRows(err) {
		return "", verification.ErrTaskNotFound
	}
	return status, pgdb.Translate(err)
}

const fixCols = `agent_id, address_id, kind, latitude, longitude, accuracy, at`

// LastFixes implements verification.Tx.
func (t *txn) LastFixes(ctx context.Context, agentID, addressID string) (last, elsewhere *verification.Fix, err error) {
	scan := func(sql string, args ...any) (*verification.Fix, error) {
		var f verification.Fix
		err := t.tx.QueryRow(ctx, sql, args...).Scan(&f.AgentID, &f.AddressID, &f.Kind, &f.Latitude, &f.Longitude, &f.Accuracy, &f.At)
		if pgdb.IsNoRows(err) {
			return nil, nil
		}
		return &f, err
	}
	if last, err = scan(`SELECT `+fixCols+` FROM agent_fixes WHERE agent_id = $1 ORDER BY at DESC LIMIT 1`, agentID); err != nil || last == nil {
		return nil, nil, err
	}
	if last.AddressID != addressID {
		return last, last, nil
	}
	elsewhere, err = scan(`SELECT `+fixCols+` FROM agent_fixes WHERE agent_id = $1 AND address_id <> $2 ORDER BY at DESC LIMIT 1`, agentID, addressID)
	return last, elsewhere, err
}

// RecordFix implements verification.Tx.
func (t *txn) RecordFix(ctx context.Context, f verification.Fix) error {
	_, err := t.tx.Exec(ctx, `INSERT INTO agent_fixes (`+fixCols+`) VALUES ($1,$2,$3,$4,$5,$6,$7)`,
		f.AgentID, f.AddressID, f.Kind, f.Latitude, f.Longitude, f.Accuracy, f.At)
	return err
}
