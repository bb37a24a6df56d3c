package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/pkg/pgdb"
	"github.com/kycfield/kyc/services/webhook/internal/webhook"
)

// listedTypes keeps webhook.test (one endpoint's ping) out of the events
// API; the partial indexes of migrations 005 and 006 carry the same
// predicate, so the planner uses them.
const listedTypes = `event_type <> 'webhook.test'`

// Events implements webhook.EventStore: a keyset page on
// (created_at desc, id desc) over the tenant's messages, answered from
// events_by_tenant, events_by_type or events_by_customer (migrations
// 005-007) whatever the depth.
func (s *Store) Events(ctx context.Context, who webhook.Caller, q webhook.EventQuery, since time.Time) ([]webhook.Event, error) {
	args := []any{who.OrgID, who.Env, since, q.Limit}
	where := `org_id = $1 AND env = $2 AND created_at > $3 AND ` + listedTypes
	if q.Type != "" {
		args = append(args, q.Type)
		where += fmt.Sprintf(` AND event_type = $%d`, len(args))
	}
	if q.CustomerID != "" {
		args = append(args, q.CustomerID)
		where += fmt.Sprintf(` AND customer_id = $%d`, len(args))
	}
	if q.After != nil {
		args = append(args, q.After.CreatedAt, q.After.ID)
		where += fmt.Sprintf(` AND (created_at, id) < ($%d, $%d)`, len(args)-1, len(args))
	}
	rows, err := s.Pool().Query(ctx, `SELECT id, created_at, body FROM messages WHERE `+where+`
		ORDER BY created_at DESC, id DESC LIMIT $4`, args...)
	if err != nil {
		return nil, pgdb.Translate(err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (e webhook.Event, err error) {
		return e, r.Scan(&e.ID, &e.CreatedAt, &e.Body)
	})
	return out, pgdb.Translate(err)
}

// Event implements webhook.EventStore.
func (s *Store) Event(ctx context.Context, who webhook.Caller, id string, since time.Time) (webhook.Event, error) {
	var e webhook.Event
	err := s.Pool().QueryRow(ctx, `SELECT id, created_at, body FROM messages
		WHERE id = $1 AND org_id = $2 AND env = $3 AND created_at > $4 AND `+listedTypes, id, who.OrgID, who.Env, since).
		Scan(&e.ID, &e.CreatedAt, &e.Body)
	if pgdb.IsNoRows(err) {
		return e, webhook.ErrEventNotFound
	}
	return e, pgdb.Translate(err)
}
