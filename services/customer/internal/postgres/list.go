package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/pkg/pgdb"
	"github.com/kycfield/kyc/services/customer/internal/customer"
)

var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// List returns one page, newest first, with its total. Unfiltered and
// status-filtered totals come from the counters; search totals are counted
// up to customer.CountCap.
func (s *Store) List(ctx context.Context, q customer.ListQuery) (customer.Page, error) {
	// One snapshot: a page's rows, their addresses and the total agree.
	var p customer.Page
	err := s.snapshot(ctx, func(db querier) (err error) {
		p, err = s.list(ctx, db, q)
		return err
	})
	return p, translate(err)
}

func (s *Store) list(ctx context.Context, db querier, q customer.ListQuery) (customer.Page, error) {
	where := []string{"org_id = $1", "env = $2", "deleted_at IS NULL"}
	args := []any{q.OrgID, q.Env}
	add := func(cond string, v any) {
		args = append(args, v)
		where = append(where, fmt.Sprintf(cond, len(args)))
	}
	if q.Status != "" {
		add("status = $%d", q.Status)
	}
	if q.Search.PhonePrefix != "" {
		add("phone LIKE $%d", likeEscaper.Replace(q.Search.PhonePrefix)+"%")
	}
	if q.Search.Text != "" {
		add("search_text LIKE $%d", "%"+likeEscaper.Replace(q.Search.Text)+"%")
	}
	filter := strings.Join(where, " AND ")
	pageWhere, pageArgs := filter, args
	if q.Cursor != nil {
		pageArgs = append(append([]any{}, args...), q.Cursor.CreatedAt, q.Cursor.ID)
		pageWhere += fmt.Sprintf(" AND (created_at, id) < ($%d, $%d)", len(pageArgs)-1, len(pageArgs))
	}
	sql := fmt.Sprintf(`SELECT %s FROM customers WHERE %s ORDER BY created_at DESC, id DESC LIMIT %d OFFSET %d`,
		customerCols, pageWhere, q.Limit+1, q.Offset())
	// Plan with the actual values (an unnamed statement): whether the
	// phone or trigram index or the newest-first index wins depends on
	// the term, and a cached generic plan cannot use a LIKE prefix.
	rows, err := db.Query(ctx, sql, append([]any{pgx.QueryExecModeExec}, pageArgs...)...)
	if err != nil {
		return customer.Page{}, err
	}
	var page customer.Page
	for rows.Next() {
		c, err := s.scanCustomer(rows)
		if err != nil {
			rows.Close()
			return customer.Page{}, err
		}
		page.Customers = append(page.Customers, c)
	}
	if err := rows.Err(); err != nil {
		return customer.Page{}, err
	}
	if len(page.Customers) > q.Limit {
		page.Customers, page.HasNext = page.Customers[:q.Limit], true
		last := page.Customers[q.Limit-1]
		page.NextCursor = customer.Cursor{CreatedAt: last.CreatedAt, ID: last.ID}.Encode()
	}
	if len(page.Customers) > 0 {
		ids := make([]string, len(page.Customers))
		for i, c := range page.Customers {
			ids[i] = c.ID
		}
		kids, err := s.children(ctx, db, ids)
		if err != nil {
			return customer.Page{}, err
		}
		for i := range page.Customers {
			k := kids[page.Customers[i].ID]
			page.Customers[i].Addresses, page.Customers[i].Documents = k.addresses, k.documents
		}
	}
	page.Total, page.TotalExact, err = s.total(ctx, db, q, filter, args)
	return page, err
}

func (s *Store) total(ctx context.Context, db querier, q customer.ListQuery, filter string, args []any) (int64, bool, error) {
	if q.Search == (customer.Search{}) {
		status := q.Status
		if status == "" {
			status = "ALL"
		}
		var n int64
		err := db.QueryRow(ctx, `SELECT n FROM customer_counts WHERE org_id = $1 AND env = $2 AND status = $3`, q.OrgID, q.Env, status).Scan(&n)
		if pgdb.IsNoRows(err) {
			return 0, true, nil
		}
		return n, true, err
	}
	var n int64
	err := db.QueryRow(ctx, fmt.Sprintf(`SELECT count(*) FROM (SELECT 1 FROM customers WHERE %s LIMIT %d) capped`,
		filter, customer.CountCap+1), append([]any{pgx.QueryExecModeExec}, args...)...).Scan(&n)
	if n > customer.CountCap {
		return customer.CountCap, false, err
	}
	return n, true, err
}
