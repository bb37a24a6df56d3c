package pgdb_test

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/pkg/pgdb"
	"github.com/kycfield/kyc/pkg/pgtest"
)

var stepFiles = fstest.MapFS{
	"001_items.sql": {Data: []byte(`CREATE TABLE items (id int PRIMARY KEY, name text NOT NULL, name_key text);
		INSERT INTO items SELECT g, 'Item ' || g FROM generate_series(1, 25) g;`)},
	"002_fill_keys.sql": {Data: []byte("-- Fills name_key in batches, in Go.\nSELECT 'pgdb: go fill_keys';\n")},
	"003_unique_keys.sql": {Data: []byte("---- tern: disable-tx ----\n" +
		"CREATE UNIQUE INDEX CONCURRENTLY items_name_key ON items (name_key);\n")},
}

// A Go step runs in its place in the sequence, outside a transaction (so
// its batches commit one by one), and once.
func TestGoStepsRunInTheirPlaceOutsideATransaction(t *testing.T) {
	url := pgtest.CreateDB(t)
	runs := 0
	fill := func(ctx context.Context, conn *pgx.Conn) error {
		runs++
		if conn.PgConn().TxStatus() != 'I' {
			t.Errorf("the step runs inside a transaction (status %c)", conn.PgConn().TxStatus())
		}
		for {
			tag, err := conn.Exec(ctx, `UPDATE items SET name_key = lower(name)
				WHERE id IN (SELECT id FROM items WHERE name_key IS NULL ORDER BY id LIMIT 10)`)
			if err != nil || tag.RowsAffected() == 0 {
				return err
			}
		}
	}
	set := pgdb.Migration{VersionTable: "schema_version", Files: stepFiles, Steps: map[string]pgdb.Step{"fill_keys": fill}}
	for range 2 {
		if err := pgdb.Migrate(context.Background(), url, set); err != nil {
			t.Fatal(err)
		}
	}
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var missing int
	var valid bool
	if err := conn.QueryRow(context.Background(), `SELECT (SELECT count(*) FROM items WHERE name_key IS NULL),
		(SELECT indisvalid FROM pg_index WHERE indexrelid = 'items_name_key'::regclass)`).Scan(&missing, &valid); err != nil {
		t.Fatal(err)
	}
	if runs != 1 || missing != 0 || !valid {
		t.Fatalf("runs %d, rows without a key %d, index valid %v", runs, missing, valid)
	}
}

// A placeholder without its step, or a step without a placeholder, stops
// the migration before anything runs.
func TestUnboundGoStepsAreErrors(t *testing.T) {
	noop := func(context.Context, *pgx.Conn) error { return nil }
	for name, steps := range map[string]map[string]pgdb.Step{
		"missing": nil,
		"typo":    {"fill_key": noop, "fill_keys": noop},
	} {
		t.Run(name, func(t *testing.T) {
			url := pgtest.CreateDB(t)
			err := pgdb.Migrate(context.Background(), url, pgdb.Migration{VersionTable: "schema_version", Files: stepFiles, Steps: steps})
			if err == nil || !strings.Contains(err.Error(), "fill_key") {
				t.Fatalf("err = %v", err)
			}
			conn, err := pgx.Connect(context.Background(), url)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(context.Background())
			var exists bool
			_ = conn.QueryRow(context.Background(), `SELECT to_regclass('items') IS NOT NULL`).Scan(&exists)
			if exists {
				t.Fatal("migrations ran before the error")
			}
		})
	}
}
