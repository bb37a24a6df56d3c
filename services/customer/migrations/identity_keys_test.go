package migrations

import (
	"context"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/pkg/pgdb"
	"github.com/kycfield/kyc/pkg/pgtest"
)

// upTo is the embedded migrations numbered up to n: the schema as an
// older release left it.
func upTo(t *testing.T, n int) fs.FS {
	out := fstest.MapFS{}
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		var seq int
		if _, err := fmt.Sscanf(e.Name(), "%03d_", &seq); err == nil && seq <= n {
			b, _ := fs.ReadFile(files, e.Name())
			out[e.Name()] = &fstest.MapFile{Data: b}
		}
	}
	return out
}

// Customers written before the keys get them from the backfill, with the
// service's own functions, across several batches; where dodged
// duplicates already share a key, the oldest keeps it and the unique
// indexes build all the same.
func TestBackfillKeysExistingCustomers(t *testing.T) {
	ctx := context.Background()
	url := pgtest.CreateDB(t)
	if err := pgdb.Migrate(ctx, url, pgdb.Migration{VersionTable: "schema_version", Files: upTo(t, 3)}); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	phones := 0
	insert := func(id, org, loan, email string, relog bool) {
		t.Helper()
		phones++
		var reason *string
		if relog {
			r := "new loan"
			reason = &r
		}
		if _, err := conn.Exec(ctx, `INSERT INTO customers (id, org_id, env, first_name, last_name, phone, email, loan_id,
			relog_reason, status, submitted_at, created_at, updated_at, search_text)
			VALUES ($1, $2, 'test', 'Ngozi', 'Okafor', $6, nullif($3, ''), nullif($4, ''), $5, 'PENDING', now(), now(), now(), '')`,
			id, org, email, loan, reason, fmt.Sprintf("+23480%08d", phones)); err != nil {
			t.Fatal(err)
		}
	}
	// Old rows enough for three batches, then the dodged duplicates.
	for i := range 2*backfillBatch + 10 {
		insert(fmt.Sprintf("cus_a%06d", i), "org_bulk", fmt.Sprintf("LN-%d", i), fmt.Sprintf("c%d@example.com", i), false)
	}
	insert("cus_b1", "org_1", "LN-2026/0042", "Ngozi@Example.com", false)
	insert("cus_b2", "org_1", "ln-20\u200b26/0042", "ngozi\u200b@example.com", false) // dodged both
	insert("cus_b3", "org_1", "LN\uff0d2026/0042", "", true)                          // relogged: keyed, outside the index
	insert("cus_b4", "org_2", "LN-2026/0042", "ngozi@example.com", false)             // another organization
	if err := pgdb.Migrate(ctx, url, Set()); err != nil {
		t.Fatal(err)
	}
	var unkeyed int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM customers WHERE org_id = 'org_bulk'
		AND (loan_key IS DISTINCT FROM lower(loan_id) OR email_key IS DISTINCT FROM email)`).Scan(&unkeyed); err != nil || unkeyed != 0 {
		t.Fatalf("bulk rows without their keys: %d (%v)", unkeyed, err)
	}
	want := map[string][2]string{
		"cus_b1": {"ln-2026/0042", "ngozi@example.com"},
		"cus_b2": {"", ""},
		"cus_b3": {"ln-2026/0042", ""},
		"cus_b4": {"ln-2026/0042", "ngozi@example.com"},
	}
	for id, w := range want {
		var loan, email string
		if err := conn.QueryRow(ctx, `SELECT coalesce(loan_key, ''), coalesce(email_key, '') FROM customers WHERE id = $1`, id).Scan(&loan, &email); err != nil {
			t.Fatal(err)
		}
		if loan != w[0] || email != w[1] {
			t.Errorf("%s: keys %q %q, want %q %q", id, loan, email, w[0], w[1])
		}
	}
	var indexes string
	if err := conn.QueryRow(ctx, `SELECT string_agg(c.relname || ':' || i.indisvalid, ' ' ORDER BY c.relname) FROM pg_index i
		JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = 'customers'::regclass AND c.relname LIKE '%\_key'`).Scan(&indexes); err != nil {
		t.Fatal(err)
	}
	if indexes != "customers_email_key:true customers_loan_key:true customers_unique_email_key:true customers_unique_loan_key:true" {
		t.Fatalf("indexes: %s", indexes)
	}
	if strings.Contains(indexes, "false") {
		t.Fatal("an invalid index")
	}
}
