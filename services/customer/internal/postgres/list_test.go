package postgres_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kycfield/kyc/pkg/ids"
	"github.com/kycfield/kyc/services/customer/internal/customer"
	"github.com/kycfield/kyc/services/customer/internal/postgres"
)

// listRow is a customer as the list test seeds it.
type listRow struct {
	id, org, env, first, last, email, phone, status string
	text                                            string // customer.SearchText
	at                                              time.Time
	deleted                                         bool
}

// TestSearchMatchesAReferenceAndStaysInItsTenant checks List against a
// plain reading of the rules (substring of the folded name, email and
// phone; this organization and environment only; newest first; totals
// exact up to CountCap, then capped) for terms that take every path:
// trigram keys or not, the index or the newest-first walk (and the walk
// falling back to the index), all matches in one capped read or more,
// phone prefixes, status filters, page numbers and cursors. The same
// names live in another organization and in the sandbox, so a search
// that leaked across tenants would return or count them.
func TestSearchMatchesAReferenceAndStaysInItsTenant(t *testing.T) {
	t.Parallel()
	f := setup(t)
	var rows []listRow
	add := seeder(&rows)
	// org_a/live: over CountCap Ngozis but fewer Okafors, interleaved with
	// the same names in org_b and in org_a's sandbox; one customer in
	// fifty deleted. The tenant is too small for the walk to pay: the
	// walk is TestSearchWalkCutShortCountsThroughTheIndex's.
	for range 10 {
		add("org_a", "live", "Ngozi", "Okafor", 90)
		add("org_b", "live", "Ngozi", "Okafor", 30)
		add("org_a", "test", "Ngozi", "Okafor", 5)
		add("org_a", "live", "Ngozi", "Okeke", 15)
		add("org_a", "live", "Émeka", "Bello", 8)
	}
	add("org_a", "live", "Zhōu", "Li", 3)
	add("org_a", "live", "Иван", "Иванов", 3)
	liveNgozis := 0
	for _, r := range rows {
		if r.org == "org_a" && r.env == "live" && r.first == "Ngozi" && !r.deleted {
			liveNgozis++
		}
	}
	if liveNgozis <= customer.CountCap {
		t.Fatalf("seed has %d live Ngozis in org_a; the test needs more than %d", liveNgozis, customer.CountCap)
	}
	seedList(t, f.pool, rows)

	for _, c := range []searchCheck{
		{"org_a", "live", "ngozi okafor", ""},  // under the cap: page and total from one read
		{"org_a", "live", "Ngozi", ""},         // over the cap
		{"org_a", "live", "okeke", "PENDING"},  // through the index, with a status
		{"org_a", "live", "NGOZI", "VERIFIED"}, // search + status
		{"org_a", "live", "zi ok", ""},         // crosses a word boundary
		{"org_a", "live", "gozi oka", ""},      // ... and starts and ends inside words
		{"org_a", "live", "okeke", ""},         //
		{"org_a", "live", "emeka", ""},         // accent-folded
		{"org_a", "live", "Émeka Bello", ""},   //
		{"org_a", "live", "zhōu", ""},          // folded to zhou
		{"org_a", "live", "i o", ""},           // no trigram: no keys
		{"org_a", "live", "o", ""},             // idem, over the cap
		{"org_a", "live", "50%", ""},           // LIKE wildcards are literal
		{"org_a", "live", "a_b", ""},           //
		{"org_a", "live", "kafor12@gmai", ""},  //
		{"org_a", "live", "0803000", ""},       // phone prefix
		{"org_a", "live", "nobody", ""},        //
		{"org_b", "live", "ngozi okafor", ""},  // the other tenants
		{"org_a", "test", "ngozi", ""},         //
		{"org_c", "live", "ngozi", ""},         // a tenant with nothing
	} {
		t.Run(c.String(), func(t *testing.T) { checkSearch(t, f.store, rows, c) })
	}
}

// TestSearchWalkCutShortCountsThroughTheIndex makes the newest-first
// walk choose itself for any term and stop after 2,000 customers: "bola"
// is walked to its cap, and "zainab", common among the newest customers
// and as common among older ones, is found fewer than CountCap+1 times
// within the bound and must then be counted through the index. Not
// parallel: it changes the tuning of the package for its duration.
func TestSearchWalkCutShortCountsThroughTheIndex(t *testing.T) {
	defer postgres.SetSearchTuning(1, 2000)()
	f := setup(t)
	var rows []listRow
	add := seeder(&rows)
	add("org_a", "live", "Zainab", "Garba", 300)
	add("org_a", "live", "Bola", "Eze", 2000)
	add("org_b", "live", "Bola", "Eze", 500)
	for range 5 {
		add("org_a", "live", "Zainab", "Garba", 60)
		add("org_a", "live", "Bola", "Eze", 60)
	}
	seedList(t, f.pool, rows)
	for _, c := range []searchCheck{
		{"org_a", "live", "zainab", ""},           // half of them beyond the bound
		{"org_a", "live", "bola", ""},             // capped within it
		{"org_a", "live", "bola eze", "REJECTED"}, // with a status
		{"org_b", "live", "bola", ""},             // a small tenant, walked whole
		{"org_a", "live", "0803000", ""},          // a phone prefix is never walked
	} {
		t.Run(c.String(), func(t *testing.T) { checkSearch(t, f.store, rows, c) })
	}
}

// searchCheck is one search of checkSearch.
type searchCheck struct {
	org, env, raw string
	status        string
}

func (c searchCheck) String() string {
	return fmt.Sprintf("%s/%s/%s/%s", c.org, c.env, c.raw, c.status)
}

// checkSearch compares the first page, a page by number, a page beyond
// the first CountCap+1 matches and the first 1,500 matches by cursor
// with the reference.
func checkSearch(t *testing.T, store *postgres.Store, rows []listRow, c searchCheck) {
	t.Helper()
	raw := customer.RawListQuery{Search: &c.raw}
	if c.status != "" {
		raw.Status = &c.status
	}
	want := reference(rows, c.org, c.env, customer.ParseSearch(c.raw), c.status)
	list := func(limit int, page, cursor string) customer.Page {
		t.Helper()
		r := raw
		l := fmt.Sprint(limit)
		r.Limit = &l
		if page != "" {
			r.Page = &page
		}
		if cursor != "" {
			r.Cursor = &cursor
		}
		q, err := customer.ParseListQuery(customer.Caller{OrgID: c.org, Env: c.env}, r)
		if err != nil {
			t.Fatal(err)
		}
		p, err := store.List(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	first := list(20, "", "")
	wantTotal, wantExact := int64(len(want)), len(want) <= customer.CountCap
	if !wantExact {
		wantTotal = customer.CountCap
	}
	if first.Total != wantTotal || first.TotalExact != wantExact || first.HasNext != (len(want) > 20) {
		t.Fatalf("total %d exact %v hasNext %v, want %d %v %v", first.Total, first.TotalExact, first.HasNext, wantTotal, wantExact, len(want) > 20)
	}
	if got := pageIDs(first); !slices.Equal(got, want[:min(20, len(want))]) {
		t.Fatalf("first page %v\nwant %v", got, want[:min(20, len(want))])
	}
	if got, w := pageIDs(list(7, "4", "")), want[min(21, len(want)):min(28, len(want))]; !slices.Equal(got, w) {
		t.Fatalf("page 4 of 7: %v, want %v", got, w)
	}
	if got, w := pageIDs(list(20, "60", "")), want[min(1180, len(want)):min(1200, len(want))]; !slices.Equal(got, w) {
		t.Fatalf("page 60 of 20: %v, want %v", got, w)
	}
	// The first 1,500 matches (across the cap), once, in order, by cursor.
	var all []string
	cursor := ""
	for len(all) < 1500 {
		p := list(100, "", cursor)
		if p.Total != wantTotal || p.TotalExact != wantExact {
			t.Fatalf("total after cursor %d %v, want %d %v", p.Total, p.TotalExact, wantTotal, wantExact)
		}
		for _, cu := range p.Customers {
			if cu.OrgID != c.org || cu.Env != c.env {
				t.Fatalf("customer %s of %s/%s listed for %s/%s", cu.ID, cu.OrgID, cu.Env, c.org, c.env)
			}
		}
		all = append(all, pageIDs(p)...)
		if !p.HasNext {
			break
		}
		cursor = p.NextCursor
	}
	if w := want[:min(len(want), len(all))]; len(all) < min(len(want), 1500) || !slices.Equal(all, w) {
		t.Fatalf("walked %d customers by cursor, want %d (first difference at %d)", len(all), len(want), firstDiff(all, w))
	}
}

// seeder returns a function appending n customers of one tenant to rows,
// each created after the one before it.
func seeder(rows *[]listRow) func(org, env, first, last string, n int) {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return func(org, env, first, last string, n int) {
		for range n {
			k := len(*rows)
			// Every seventh customer shares its creation time with the
			// one before: the id breaks the tie, in pages and cursors.
			at := base.Add(time.Duration(k-k%7/6) * time.Second)
			r := listRow{
				id: ids.New("cus"), org: org, env: env, first: first, last: last,
				email:  fmt.Sprintf("%s.%s%d@%s", strings.ToLower(first), strings.ToLower(last), k, []string{"gmail.com", "50%off.ng", "a_b.ng"}[k%3]),
				phone:  fmt.Sprintf("+234803%07d", k),
				status: []string{"PENDING", "VERIFIED", "REJECTED", "IN_PROGRESS"}[k%4],
				at:     at, deleted: k%50 == 49,
			}
			r.text = customer.SearchText(customer.Customer{FirstName: r.first, LastName: r.last, Email: r.email, Phone: r.phone})
			*rows = append(*rows, r)
		}
	}
}

// reference lists rows the way the API promises, from the rows alone.
func reference(rows []listRow, org, env string, s customer.Search, status string) []string {
	var m []listRow
	for _, r := range rows {
		if r.org != org || r.env != env || r.deleted || (status != "" && r.status != status) ||
			(s.PhonePrefix != "" && !strings.HasPrefix(r.phone, s.PhonePrefix)) || !strings.Contains(r.text, s.Text) {
			continue
		}
		m = append(m, r)
	}
	slices.SortFunc(m, func(a, b listRow) int {
		if c := b.at.Compare(a.at); c != 0 {
			return c
		}
		return strings.Compare(b.id, a.id)
	})
	out := make([]string, len(m))
	for i, r := range m {
		out[i] = r.id
	}
	return out
}

func seedList(t *testing.T, pool *pgxpool.Pool, rows []listRow) {
	t.Helper()
	src := make([][]any, len(rows))
	for i, r := range rows {
		var deleted *time.Time
		if r.deleted {
			deleted = &r.at
		}
		src[i] = []any{r.id, r.org, r.env, r.first, r.last, r.phone, r.email, r.status, r.at, r.at, r.at, deleted, r.text}
	}
	_, err := pool.CopyFrom(context.Background(), pgx.Identifier{"customers"}, []string{"id", "org_id", "env", "first_name", "last_name",
		"phone", "email", "status", "submitted_at", "created_at", "updated_at", "deleted_at", "search_text"}, pgx.CopyFromRows(src))
	if err != nil {
		t.Fatal(err)
	}
	// The counters the service keeps with every change.
	_, err = pool.Exec(context.Background(), `INSERT INTO customer_counts (org_id, env, status, n)
		SELECT org_id, env, coalesce(status, 'ALL'), count(*) FROM customers WHERE deleted_at IS NULL
		 GROUP BY GROUPING SETS ((org_id, env, status), (org_id, env))`)
	if err != nil {
		t.Fatal(err)
	}
}

func pageIDs(p customer.Page) []string {
	out := make([]string, len(p.Customers))
	for i, c := range p.Customers {
		out[i] = c.ID
	}
	return out
}

func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestSearchPatternKeysAreInEveryRowContainingTheTerm checks the index
// keys of migration 002 directly: for every substring of these texts, the
// keys the pattern asks for are among the keys of the text (a missing
// one would hide a match from the index). Multibyte letters matter:
// pg_trgm shows their trigrams as hashes, padding and all.
func TestSearchPatternKeysAreInEveryRowContainingTheTerm(t *testing.T) {
	t.Parallel()
	f := setup(t)
	texts := []string{
		"ngozi okafor ngozi.okafor424242@gmail.com +2348031234567",
		"иван иванов ivan@mail.ru +2348030000001",
		"李小龙 wang 王小明 +2348030000002",
		"ελένη παπαδοπούλου eleni@example.gr",
		"محمد عبد الله mohammed@example.ng",
		"o'neil abu-bakr a_b 50%off back\\slash x.y.z",
		"aaaa abab aab ba xxxx",
	}
	var ts, subs []string
	for _, text := range texts {
		r := []rune(text)
		for i := range r {
			for j := i + 1; j <= min(len(r), i+14); j++ {
				if s := strings.TrimSpace(string(r[i:j])); s != "" {
					ts, subs = append(ts, text), append(subs, s)
				}
			}
		}
	}
	rows, err := f.pool.Query(context.Background(), `
		SELECT t, s FROM unnest($1::text[], $2::text[]) AS x (t, s)
		 WHERE NOT customer_search_keys('org_a', 'live', t) @> customer_search_pattern('org_a', 'live', s)`, ts, subs)
	if err != nil {
		t.Fatal(err)
	}
	missed, err := pgx.CollectRows(rows, pgx.RowToStructByPos[struct{ Text, Term string }])
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range missed {
		t.Errorf("%q in %q: the pattern asks for a key the text lacks", m.Term, m.Text)
	}
	// The keys are the tenant's: another organization's pattern asks for
	// keys this one's rows do not have.
	var leaks int
	err = f.pool.QueryRow(context.Background(), `
		SELECT count(*) FROM unnest($1::text[], $2::text[]) AS x (t, s)
		 WHERE cardinality(customer_search_pattern('org_b', 'live', s)) > 0
		   AND customer_search_keys('org_a', 'live', t) @> customer_search_pattern('org_b', 'live', s)`, ts, subs).Scan(&leaks)
	if err != nil || leaks > 0 {
		t.Fatalf("%d of %d terms of org_b match org_a's keys (%v)", leaks, len(subs), err)
	}
}
