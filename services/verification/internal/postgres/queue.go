package postgres

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/pkg/pgdb"
	"github.com/kycfield/kyc/services/verification/internal/verification"
)

// openLive is the predicate of migration 013's partial indexes, word for
// word, so that the planner uses them.
const openLive = `j.env = 'live' AND j.status IN ('PENDING', 'ASSIGNED', 'IN_PROGRESS', 'IN_REVIEW')`

// where builds a filter's conditions on jobs j; args are numbered from
// the first free parameter.
type where struct {
	conds []string
	args  []any
}

// add appends cond, its each ? standing for the next of args.
func (w *where) add(cond string, args ...any) {
	for _, a := range args {
		w.args = append(w.args, a)
		cond = strings.Replace(cond, "?", fmt.Sprintf("$%d", len(w.args)), 1)
	}
	w.conds = append(w.conds, cond)
}

func (w *where) sql() string { return strings.Join(append([]string{openLive}, w.conds...), " AND ") }

// filtered is the queue filter's conditions, without its due part and
// cursor (the summary counts them itself).
func filtered(f verification.QueueFilter, now time.Time) *where {
	w := &where{}
	if f.State != "" {
		w.add("j.state = ?", f.State)
	}
	if f.LGA != "" {
		w.add("j.lga = ?", f.LGA)
	}
	if f.Status != "" {
		w.add("j.status = ?", f.Status)
	}
	if f.OrgID != "" {
		w.add("j.org_id = ?", f.OrgID)
	}
	if f.AgentID != "" {
		w.add("j.agent_id = ?", f.AgentID)
	}
	if f.OlderThan > 0 {
		w.add("j.created_at < ?", now.Add(-f.OlderThan))
	}
	return w
}

// Queue implements verification.OpsStore: the page walks the index on
// open live jobs by promise; the counts read the same filter once more.
func (s *Store) Queue(ctx context.Context, f verification.QueueFilter, win verification.Window) (verification.QueuePage, error) {
	var page verification.QueuePage
	err := s.snapshot(ctx, func(tx pgx.Tx) error {
		w := filtered(f, win.Now)
		sum := fmt.Sprintf(`SELECT count(*), count(*) FILTER (WHERE j.due_by < $%d),
			count(*) FILTER (WHERE j.due_by >= $%d AND j.due_by < $%d) FROM jobs j WHERE %s`,
			len(w.args)+1, len(w.args)+1, len(w.args)+2, w.sql())
		if err := tx.QueryRow(ctx, sum, append(w.args, win.Now, win.EndOfDay)...).Scan(
			&page.Summary.Total, &page.Summary.Overdue, &page.Summary.DueToday); err != nil {
			return err
		}
		switch f.Due {
		case verification.DueOverdue:
			w.add("j.due_by < ?", win.Now)
		case verification.DueToday:
			w.add("j.due_by >= ?", win.Now)
			w.add("j.due_by < ?", win.EndOfDay)
		}
		if f.After != nil {
			w.add("(j.due_by, j.address_id) > (?::timestamptz, ?::text)", f.After.DueBy, f.After.AddressID)
		}
		w.args = append(w.args, f.Limit+1)
		rows, err := tx.Query(ctx, fmt.Sprintf(`SELECT j.address_id, j.customer_id, j.org_id, coalesce(o.name, ''),
				c.first_name || ' ' || c.last_name, j.address, j.status, coalesce(j.agent_id, ''), coalesce(a.name, ''),
				j.created_at, j.due_by
			FROM jobs j JOIN cases c ON c.customer_id = j.customer_id
			LEFT JOIN org_settings o ON o.org_id = j.org_id
			LEFT JOIN agents a ON a.id = j.agent_id
			WHERE %s ORDER BY j.due_by, j.address_id LIMIT $%d`, w.sql(), len(w.args)), w.args...)
		if err != nil {
			return err
		}
		page.Items, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (verification.QueueItem, error) {
			var it verification.QueueItem
			var addr []byte
			var agentID, agentName string
			err := r.Scan(&it.AddressID, &it.CustomerID, &it.OrgID, &it.OrgName, &it.CustomerName, &addr, &it.Status,
				&agentID, &agentName, &it.CreatedAt, &it.DueBy)
			if err == nil && agentID != "" {
				it.Agent = &verification.Agent{ID: agentID, Name: agentName}
			}
			if err == nil {
				err = unmarshal(addr, &it.Address)
			}
			it.Mark(win)
			return it, err
		})
		return err
	})
	if err != nil {
		return page, err
	}
	if len(page.Items) > f.Limit {
		page.Items = page.Items[:f.Limit]
		last := page.Items[f.Limit-1]
		page.Next = &verification.QueueCursor{DueBy: last.DueBy, AddressID: last.AddressID}
	}
	return page, nil
}

// OpenByArea implements verification.OpsStore with an index-only scan of
// migration 013's jobs_open_live_area.
func (s *Store) OpenByArea(ctx context.Context) ([]verification.AreaCount, error) {
	rows, err := s.Pool().Query(ctx, `SELECT j.state, j.lga, count(*), count(*) FILTER (WHERE j.status = 'PENDING')
		FROM jobs j WHERE `+openLive+` GROUP BY j.state, j.lga`)
	if err != nil {
		return nil, pgdb.Translate(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByPos[verification.AreaCount])
	return out, pgdb.Translate(err)
}

// AgentWeeks implements verification.OpsStore from the visit trails (one
// per visit an agent ended) and the jobs' results.
func (s *Store) AgentWeeks(ctx context.Context, since time.Time) (map[string]verification.AgentWeek, error) {
	rows, err := s.Pool().Query(ctx, `SELECT t.agent_id, count(*),
			percentile_cont(0.5) WITHIN GROUP (ORDER BY t.seconds_on_site),
			count(*) FILTER (WHERE t.completed_at = j.completed_at AND EXISTS (
				SELECT 1 FROM jsonb_array_elements(coalesce(j.result -> 'flagDetails', '[]')) f
				WHERE f ->> 'severity' IN ('warning', 'critical'))),
			count(*) FILTER (WHERE t.completed_at = j.completed_at AND j.status = 'REJECTED' AND t.outcome <> 'NO_ACCESS'),
			count(*) FILTER (WHERE t.outcome = 'NO_ACCESS')
		FROM visit_trails t JOIN jobs j ON j.address_id = t.address_id
		WHERE t.completed_at >= $1 AND j.env = 'live'
		GROUP BY t.agent_id`, since)
	if err != nil {
		return nil, pgdb.Translate(err)
	}
	defer rows.Close()
	out := map[string]verification.AgentWeek{}
	for rows.Next() {
		var id string
		var w verification.AgentWeek
		var median *float64
		if err := rows.Scan(&id, &w.Visits, &median, &w.Flagged, &w.Rejected, &w.NoAccess); err != nil {
			return nil, err
		}
		if median != nil {
			d := time.Duration(*median * float64(time.Second))
			w.MedianOnSite = &d
		}
		out[id] = w
	}
	return out, pgdb.Translate(rows.Err())
}

// TouchAgent implements verification.OpsStore; the minute's grace keeps
// an agent's every call from writing the row.
func (s *Store) TouchAgent(ctx context.Context, agentID string, now time.Time) error {
	_, err := s.Pool().Exec(ctx, `UPDATE agents SET last_seen_at = $2 WHERE id = $1
		AND (last_seen_at IS NULL OR last_seen_at < $2::timestamptz - interval '1 minute')`, agentID, now)
	return pgdb.Translate(err)
}

// WaitingLiveIn implements verification.OpsTx.
func (t *txn) WaitingLiveIn(ctx context.Context, states []string, limit int) ([]verification.Waiting, error) {
	rows, err := t.tx.Query(ctx, `SELECT customer_id, address_id FROM jobs
		WHERE env = 'live' AND status = 'PENDING' AND state = ANY($1) ORDER BY created_at LIMIT $2`, states, limit)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (verification.Waiting, error) {
		var w verification.Waiting
		return w, r.Scan(&w.CustomerID, &w.AddressID)
	})
}

// SaveAgent implements verification.OpsTx.
func (t *txn) SaveAgent(ctx context.Context, a verification.FieldAgent) error {
	_, err := t.tx.Exec(ctx, `UPDATE agents SET name = $2, phone = $3, states = $4, lgas = $5, updated_at = $6 WHERE id = $1`,
		a.ID, a.Name, a.Phone, a.States, orEmpty(a.LGAs), a.UpdatedAt)
	return phoneTaken(err)
}
