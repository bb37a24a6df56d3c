package postgres

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"github.com/jackc/pgx/v5"

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

// filter is a list's WHERE clause and its arguments: org, environment,
// live rows, status and phone prefix in base; a search term's LIKE, and
// the term for the tenant's trigram index (customers_search_tenant,
// migration 002) when that index can serve it, as argument numbers.
type filter struct {
	base       []string
	args       []any
	like, term int
}

func newFilter(q customer.ListQuery) filter {
	f := filter{base: []string{"org_id = $1", "env = $2", "deleted_at IS NULL"}, args: []any{q.OrgID, q.Env}}
	arg := func(v any) int {
		f.args = append(f.args, v)
		return len(f.args)
	}
	if q.Status != "" {
		f.base = append(f.base, fmt.Sprintf("status = $%d", arg(q.Status)))
	}
	if q.Search.PhonePrefix != "" {
		f.base = append(f.base, fmt.Sprintf("phone LIKE $%d", arg(likeEscaper.Replace(q.Search.PhonePrefix)+"%")))
	}
	if t := q.Search.Text; t != "" {
		f.like = arg("%" + likeEscaper.Replace(t) + "%")
		if hasTrigram(t) {
			f.term = arg(t)
		}
	}
	return f
}

// where is the filter as SQL; with keys, it also selects the tenant's
// trigram index (the LIKE stays: keys only narrow the rows it checks).
func (f filter) where(keys bool) string {
	w := strings.Join(f.base, " AND ")
	if f.like != 0 {
		w += fmt.Sprintf(" AND search_text LIKE $%d", f.like)
	}
	if keys && f.term != 0 {
		w += fmt.Sprintf(" AND customer_search_keys(org_id, env, search_text) @> customer_search_pattern($1, $2, $%d)", f.term)
	}
	return w
}

// argsFor are the arguments of where(keys); the term comes last.
func (f filter) argsFor(keys bool) []any {
	if !keys && f.term != 0 {
		return f.args[:f.term-1]
	}
	return f.args
}

// hasTrigram reports whether term has three letters or digits in a row,
// so that customer_search_pattern yields keys. Without any, the index
// could only be scanned whole.
func hasTrigram(term string) bool {
	run := 0
	for _, r := range term {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			run = 0
		} else if run++; run == 3 {
			return true
		}
	}
	return false
}

func (s *Store) list(ctx context.Context, db querier, q customer.ListQuery) (customer.Page, error) {
	f := newFilter(q)
	if q.Search == (customer.Search{}) {
		page, err := s.page(ctx, db, q, f)
		if err != nil {
			return page, err
		}
		page.Total, page.TotalExact, err = s.counted(ctx, db, q)
		return page, err
	}
	return s.search(ctx, db, q, f)
}

// Choosing how a search finds its matches. The trigram index costs about
// 0.4 µs per candidate row (bitmap and table check) and cannot stop
// early: a term in 5 % of a million customers costs it 20 ms, one in 40 %
// ("gmail") 200 ms. Walking the newest-first index, which carries
// search_text (migration 003), costs about 0.65 µs a row but stops at the
// cap: 1,001 matches of a 5 % term are found within 20,000 rows, 13 ms.
// So a search first checks its term on the tenant's newest probeRows
// customers: with h hits among them in a tenant of n customers, the walk
// is the cheaper way when h²·n ≥ walkOverIndex (0.65 µs / 0.4 µs × 1,001
// × probeRows², rounded up: 4.5 % of a million customers), and it reads
// at most walkBound rows.
const probeRows = 1000

var (
	walkOverIndex = 2_000_000_000
	walkBound     = 100_000
)

// search answers a list with a search term in one statement, usually:
// the matches are read once, capped at CountCap+1 rows, which is all a
// capped total needs, and the page is cut from those same rows when they
// are all the matches, or the newest ones and the page lies within them.
// Otherwise (more matches than the cap, found through the index, or a
// page beyond the newest ones) a second statement reads the page by the
// newest-first walk, which over a thousand matches make short.
func (s *Store) search(ctx context.Context, db querier, q customer.ListQuery, f filter) (customer.Page, error) {
	walked, n, ids, err := s.matches(ctx, db, q, f, f.term != 0)
	if err == nil && walked && n <= customer.CountCap {
		// The walk met its bound first (matches thinning out among older
		// customers): count through the index.
		walked, n, ids, err = s.matches(ctx, db, q, f, false)
	}
	if err != nil {
		return customer.Page{}, err
	}
	total, exact := n, true
	if n > customer.CountCap {
		total, exact = customer.CountCap, false
		// The newest CountCap+1 matches hold the page if it ends
		// before they do.
		if !walked || len(ids) <= q.Limit {
			page, err := s.page(ctx, db, q, f)
			page.Total, page.TotalExact = total, exact
			return page, err
		}
	}
	if len(ids) == 0 {
		return customer.Page{Total: total, TotalExact: exact}, nil
	}
	page, err := s.read(ctx, db, q, `SELECT `+customerCols+` FROM customers WHERE id = ANY($1) ORDER BY created_at DESC, id DESC`, ids)
	page.Total, page.TotalExact = total, exact
	return page, err
}

// matches reads up to CountCap+1 matches of f and returns how many it
// found and the ids of the page among them. With probe, the statement
// first samples the tenant's newest customers and then either walks the
// newest-first index (walked: the matches are the newest ones) or reads
// the trigram index; without, it reads the index when the term has keys
// and lets the planner choose otherwise.
func (s *Store) matches(ctx context.Context, db querier, q customer.ListQuery, f filter, probe bool) (walked bool, n int64, ids []string, err error) {
	args := f.argsFor(true)
	cursor := "true"
	if q.Cursor != nil {
		args = append(append([]any{}, args...), q.Cursor.CreatedAt, q.Cursor.ID)
		cursor = fmt.Sprintf("(created_at, id) < ($%d, $%d)", len(args)-1, len(args))
	}
	base, capped := strings.Join(f.base, " AND "), customer.CountCap+1
	found := fmt.Sprintf(`SELECT id, created_at FROM customers WHERE %s LIMIT %d`, f.where(true), capped)
	walk := "false"
	if probe {
		found = fmt.Sprintf(`probe AS MATERIALIZED (
			SELECT count(*) FILTER (WHERE search_text LIKE $%[2]d) ^ 2
			       * (SELECT coalesce(max(n), 0) FROM customer_counts WHERE org_id = $1 AND env = $2 AND status = 'ALL') >= %[3]d AS walk
			  FROM (SELECT search_text FROM customers WHERE %[1]s ORDER BY created_at DESC, id DESC LIMIT %[4]d) newest
		), found AS MATERIALIZED (
			(SELECT id, created_at FROM (
				SELECT id, created_at, search_text FROM customers WHERE %[1]s AND (SELECT walk FROM probe)
				 ORDER BY created_at DESC, id DESC LIMIT %[5]d) w
			  WHERE search_text LIKE $%[2]d LIMIT %[6]d)
			UNION ALL
			(SELECT id, created_at FROM customers WHERE %[7]s AND NOT (SELECT walk FROM probe) LIMIT %[6]d)
		)`, base, f.like, walkOverIndex, probeRows, walkBound, capped, f.where(true))
		walk = "(SELECT walk FROM probe)"
	} else {
		found = "found AS MATERIALIZED (" + found + ")"
	}
	sql := fmt.Sprintf(`WITH %s SELECT %s, (SELECT count(*) FROM found),
		ARRAY(SELECT id FROM found WHERE %s ORDER BY created_at DESC, id DESC LIMIT %d OFFSET %d)`,
		found, walk, cursor, q.Limit+1, q.Offset())
	// Plan with the actual values (an unnamed statement): whether the
	// phone, trigram or newest-first index wins depends on the term, and
	// a cached generic plan cannot use a LIKE prefix.
	err = db.QueryRow(ctx, sql, append([]any{pgx.QueryExecModeExec}, args...)...).Scan(&walked, &n, &ids)
	return walked, n, ids, err
}

// page reads one page in the newest-first order of the list indexes. A
// page that skips rows or checks a search term reads its ids from the
// index alone first (the rows it passes over are never read from the
// table), then its rows; a first page without a term reads its rows
// directly, one index probe fewer.
func (s *Store) page(ctx context.Context, db querier, q customer.ListQuery, f filter) (customer.Page, error) {
	where, args := f.where(false), f.argsFor(false)
	if q.Cursor != nil {
		args = append(append([]any{}, args...), q.Cursor.CreatedAt, q.Cursor.ID)
		where += fmt.Sprintf(" AND (created_at, id) < ($%d, $%d)", len(args)-1, len(args))
	}
	sql := fmt.Sprintf(`SELECT %s FROM customers WHERE %s ORDER BY created_at DESC, id DESC LIMIT %d OFFSET %d`,
		customerCols, where, q.Limit+1, q.Offset())
	if f.like != 0 || q.Offset() > 0 {
		sql = fmt.Sprintf(`SELECT %s FROM customers WHERE id = ANY(ARRAY(
			SELECT id FROM customers WHERE %s ORDER BY created_at DESC, id DESC LIMIT %d OFFSET %d)) ORDER BY created_at DESC, id DESC`,
			customerCols, where, q.Limit+1, q.Offset())
	}
	return s.read(ctx, db, q, sql, append([]any{pgx.QueryExecModeExec}, args...)...)
}

// read runs a page's statement (at most Limit+1 customers, in page order)
// and loads the page's addresses and documents.
func (s *Store) read(ctx context.Context, db querier, q customer.ListQuery, sql string, args ...any) (customer.Page, error) {
	rows, err := db.Query(ctx, sql, args...)
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
	if len(page.Customers) == 0 {
		return page, nil
	}
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
	return page, nil
}

// counted is the total of an unfiltered or status-filtered list, from the
// counters kept with every change: a status's row and the sum of its
// slots (migration 009; 'ALL' has no slots).
func (s *Store) counted(ctx context.Context, db querier, q customer.ListQuery) (int64, bool, error) {
	status := q.Status
	if status == "" {
		status = "ALL"
	}
	var n int64
	err := db.QueryRow(ctx, `SELECT coalesce((SELECT n FROM customer_counts WHERE org_id = $1 AND env = $2 AND status = $3), 0)
		+ coalesce((SELECT sum(n) FROM customer_count_slots WHERE org_id = $1 AND env = $2 AND status = $3), 0)`,
		q.OrgID, q.Env, status).Scan(&n)
	return n, true, err
}
