// Package postgres is the webhook repository: endpoints (secrets sealed
// with the keyring), messages, the delivery schedule and its log, SQL
// written out, database errors turned into domain errors.
package postgres

import (
	"context"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/keyring"
	"github.com/kycfield/kyc/pkg/orgaudit"
	"github.com/kycfield/kyc/pkg/outbox"
	"github.com/kycfield/kyc/pkg/pgdb"
	"github.com/kycfield/kyc/services/webhook/internal/webhook"
)

// NotifyChannel wakes the dispatcher when deliveries become due.
const NotifyChannel = "kyc_webhook"

// DisabledEventFunc makes the event published when an endpoint is
// disabled by the dispatcher.
type DisabledEventFunc func(e webhook.Endpoint) (event.Event, error)

// Store implements webhook.Repository and the dispatcher's schedule.
type Store struct {
	*pgdb.Store[Tx, webhook.Endpoint]
	keys       *keyring.Keyring
	auditTopic string
}

// New returns a Store on pool sealing secrets with keys; endpoint.disabled
// events (made by disabled) go to topic (full name) through the outbox.
func New(pool *pgxpool.Pool, keys *keyring.Keyring, topic string, disabled DisabledEventFunc) *Store {
	return &Store{Store: pgdb.NewStore(pool, func(tx pgx.Tx) Tx { return Tx{tx} },
		outbox.Emitter(topic, disabled, func(e webhook.Endpoint) string { return e.OrgID })), keys: keys, auditTopic: orgaudit.Topic}
}

const endpointCols = `id, org_id, env, url, description, events, enabled, disabled_reason, secret, previous_secret,
	previous_until, failing_since, created_at, updated_at`

func aad(id, which string) []byte { return []byte(id + "/" + which) }

func (s *Store) scanEndpoint(row pgx.Row) (webhook.Endpoint, error) {
	var e webhook.Endpoint
	var sealed sealedSecrets
	if err := row.Scan(endpointDest(&e, &sealed)...); err != nil {
		return e, err
	}
	return e, s.open(&e, sealed)
}

// sealedSecrets are an endpoint's secrets as stored.
type sealedSecrets struct{ secret, previous []byte }

// endpointDest lists where the columns of endpointCols go.
func endpointDest(e *webhook.Endpoint, sealed *sealedSecrets) []any {
	return []any{&e.ID, &e.OrgID, &e.Env, &e.URL, &e.Description, &e.Events, &e.Enabled, &e.DisabledReason,
		&sealed.secret, &sealed.previous, &e.PreviousUntil, &e.FailingSince, &e.CreatedAt, &e.UpdatedAt}
}

// open decrypts the sealed secrets into e.
func (s *Store) open(e *webhook.Endpoint, sealed sealedSecrets) error {
	pt, err := s.keys.Open(sealed.secret, aad(e.ID, "secret"))
	if err != nil {
		return err
	}
	e.Secret = string(pt)
	if sealed.previous != nil {
		pt, err := s.keys.Open(sealed.previous, aad(e.ID, "previous"))
		if err != nil {
			return err
		}
		e.PreviousSecret = string(pt)
	}
	return nil
}

func (s *Store) seal(e webhook.Endpoint) (secret, previous []byte) {
	secret = s.keys.Seal([]byte(e.Secret), aad(e.ID, "secret"))
	if e.PreviousSecret != "" {
		previous = s.keys.Seal([]byte(e.PreviousSecret), aad(e.ID, "previous"))
	}
	return secret, previous
}

// Create implements webhook.Repository. A transaction-scoped advisory
// lock on the tenant serialises creates, so the count cannot race.
func (s *Store) Create(ctx context.Context, e webhook.Endpoint, a webhook.Audit) error {
	return s.Transact(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('webhook/' || $1 || '/' || $2, 0))`, e.OrgID, e.Env); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM endpoints WHERE org_id = $1 AND env = $2 AND deleted_at IS NULL`,
			e.OrgID, e.Env).Scan(&n); err != nil {
			return err
		}
		if n >= webhook.MaxEndpoints {
			return webhook.LimitReached()
		}
		secret, previous := s.seal(e)
		_, err := tx.Exec(ctx, `INSERT INTO endpoints (`+endpointCols+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
			e.ID, e.OrgID, e.Env, e.URL, e.Description, e.Events, e.Enabled, e.DisabledReason, secret, previous,
			e.PreviousUntil, e.FailingSince, e.CreatedAt, e.UpdatedAt)
		if err != nil {
			return err
		}
		return s.audit(ctx, tx, a, nil)
	})
}

// List implements webhook.Repository.
func (s *Store) List(ctx context.Context, who webhook.Caller) ([]webhook.Endpoint, error) {
	rows, err := s.Pool().Query(ctx, `SELECT `+endpointCols+` FROM endpoints WHERE org_id = $1 AND env = $2 AND deleted_at IS NULL
		ORDER BY created_at, id`, who.OrgID, who.Env)
	if err != nil {
		return nil, pgdb.Translate(err)
	}
	defer rows.Close()
	out := []webhook.Endpoint{}
	for rows.Next() {
		e, err := s.scanEndpoint(rows)
		if err != nil {
			return nil, pgdb.Translate(err)
		}
		out = append(out, e)
	}
	return out, pgdb.Translate(rows.Err())
}

// Get implements webhook.Repository.
func (s *Store) Get(ctx context.Context, who webhook.Caller, id string) (webhook.Endpoint, error) {
	return s.get(ctx, s.Pool(), who, id, false)
}

type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

func (s *Store) get(ctx context.Context, q querier, who webhook.Caller, id string, lock bool) (webhook.Endpoint, error) {
	sql := `SELECT ` + endpointCols + ` FROM endpoints WHERE id = $1 AND org_id = $2 AND env = $3 AND deleted_at IS NULL`
	if lock {
		sql += ` FOR UPDATE`
	}
	e, err := s.scanEndpoint(q.QueryRow(ctx, sql, id, who.OrgID, who.Env))
	if pgdb.IsNoRows(err) {
		return e, webhook.ErrNotFound
	}
	return e, pgdb.Translate(err)
}

// Update implements webhook.Repository. Disabling parks the endpoint's
// unfinished deliveries (off the schedule); enabling makes them due now.
func (s *Store) Update(ctx context.Context, who webhook.Caller, id string, fn func(*webhook.Endpoint) error, a webhook.Audit) (webhook.Endpoint, error) {
	var out webhook.Endpoint
	err := s.Transact(ctx, func(tx pgx.Tx) error {
		e, err := s.get(ctx, tx, who, id, true)
		if err != nil {
			return err
		}
		wasEnabled := e.Enabled
		if err := fn(&e); err != nil {
			return err
		}
		secret, previous := s.seal(e)
		if _, err := tx.Exec(ctx, `UPDATE endpoints SET url = $2, description = $3, events = $4, enabled = $5, disabled_reason = $6,
			secret = $7, previous_secret = $8, previous_until = $9, failing_since = $10, updated_at = $11 WHERE id = $1`,
			e.ID, e.URL, e.Description, e.Events, e.Enabled, e.DisabledReason, secret, previous, e.PreviousUntil,
			e.FailingSince, e.UpdatedAt); err != nil {
			return err
		}
		if wasEnabled != e.Enabled {
			if err := reschedule(ctx, tx, e.ID, e.Enabled); err != nil {
				return err
			}
		}
		out = e
		return s.audit(ctx, tx, a, nil)
	})
	return out, err
}

// reschedule parks (enabled false) or resumes the endpoint's unfinished
// deliveries, so a disabled endpoint's backlog never sits in the due
// index.
func reschedule(ctx context.Context, tx pgx.Tx, endpointID string, enabled bool) error {
	if !enabled {
		_, err := tx.Exec(ctx, `UPDATE deliveries SET next_attempt_at = NULL WHERE endpoint_id = $1 AND next_attempt_at IS NOT NULL`, endpointID)
		return err
	}
	// Only the first unfinished stage event of each customer is made due:
	// the others stay parked behind it (unfinishedStage).
	_, err := tx.Exec(ctx, `UPDATE deliveries d SET next_attempt_at = now(), updated_at = now()
		WHERE endpoint_id = $1 AND status IN ('pending', 'retrying')
		AND (d.event_type <> ALL($2) OR NOT EXISTS (`+strings.ReplaceAll(earlierStage, "$4", "$2")+`))`, endpointID, webhook.Staged)
	if err == nil {
		_, err = tx.Exec(ctx, `SELECT pg_notify($1, '')`, NotifyChannel)
	}
	return err
}

// Delete implements webhook.Repository.
func (s *Store) Delete(ctx context.Context, who webhook.Caller, id string, a webhook.Audit) error {
	return s.Transact(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE endpoints SET deleted_at = now(), updated_at = now()
			WHERE id = $1 AND org_id = $2 AND env = $3 AND deleted_at IS NULL`, id, who.OrgID, who.Env)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return webhook.ErrNotFound
		}
		if err := reschedule(ctx, tx, id, false); err != nil {
			return err
		}
		return s.audit(ctx, tx, a, nil)
	})
}
