package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/pkg/outbox"
	"github.com/kycfield/kyc/pkg/pgdb"
	"github.com/kycfield/kyc/services/customer/migrations"
)

// layout is the data a run measures: rows customers in the measured
// organization (live environment) and, in multi-tenant mode, otherRows
// customers spread over tenants other organizations.
type layout struct {
	rows, tenants, otherRows int
}

func (l layout) total() int { return l.rows + l.otherRows }

func (l layout) String() string {
	if l.tenants == 0 {
		return fmt.Sprintf("%d customers in one organization", l.rows)
	}
	return fmt.Sprintf("%d customers in the measured organization beside %d in %d other organizations (%d rows in the table)",
		l.rows, l.otherRows, l.tenants, l.total())
}

// dbName names the kept database after the layout and the generator's
// version, so a run never measures data of another shape.
func (l layout) dbName() string {
	if l.tenants == 0 {
		return fmt.Sprintf("kyc_bench_list_v4_%d", l.rows)
	}
	return fmt.Sprintf("kyc_bench_list_v4_%d_%dx%d", l.rows, l.tenants, l.otherRows)
}

// prepare returns the URL of a database holding l: kept from an earlier
// run when it was seeded completely (and then migrated, so a new
// migration is applied to the millions of rows as a deployment would), or
// created and seeded now.
func prepare(ctx context.Context, adminURL, name string, l layout, fresh bool) (string, error) {
	dbURL := strings.Replace(adminURL, "/postgres?", "/"+name+"?", 1)
	if !fresh && seeded(ctx, dbURL, l) {
		log.Printf("using the database %s seeded by an earlier run; migrating it", name)
		start := time.Now()
		if err := pgdb.Migrate(ctx, dbURL, migrations.Set(), outbox.Migration(), inbox.Migration()); err != nil {
			return "", err
		}
		log.Printf("migrated in %s", time.Since(start).Round(time.Millisecond))
		return dbURL, nil
	}
	if err := dropDB(ctx, adminURL, name); err != nil {
		return "", err
	}
	admin, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		return "", err
	}
	_, err = admin.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	admin.Close(ctx)
	if err != nil {
		return "", err
	}
	if err := pgdb.Migrate(ctx, dbURL, migrations.Set(), outbox.Migration(), inbox.Migration()); err != nil {
		return "", err
	}
	return dbURL, seed(ctx, dbURL, l)
}

func dropDB(ctx context.Context, adminURL, name string) error {
	admin, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		return err
	}
	defer admin.Close(ctx)
	_, err = admin.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
	return err
}

// seeded reports whether dbURL holds a completed seed of l (the marker
// row is written last).
func seeded(ctx context.Context, dbURL string, l layout) bool {
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return false
	}
	defer conn.Close(ctx)
	var rows, tenants, other int
	err = conn.QueryRow(ctx, `SELECT rows, tenants, other_rows FROM listbench_seed`).Scan(&rows, &tenants, &other)
	return err == nil && (layout{rows, tenants, other}) == l
}

// benchOrg is the measured organization; the others are org_other_000...
const benchOrg = "org_bench"

// genSQL generates customers k in [$1, $2) of the table, each with one
// address, in the server (no row crosses the network). Row k belongs to
// the measured organization when the k-th share of rows/total steps
// up, so its customers are spread evenly through the table as they would
// be in a table every lender writes to at once; the others go to a
// hash-chosen organization (a quarter of them in sandbox). Names come
// from the same lists for every organization: other lenders have their
// Ngozi Okafors too. Row k is created $3 + k*$4 µs, phones are a
// bijection of k, emails carry k: all unique, as the service's unique
// indexes require. The id is a valid UUIDv7 of created_at.
const genSQL = `
WITH c AS (
	INSERT INTO customers (id, org_id, env, first_name, last_name, phone, email, status, submitted_at, created_at, updated_at, search_text)
	SELECT 'cus_' || lpad(to_hex((extract(epoch FROM at) * 1000)::bigint), 12, '0') || '7' || lpad(to_hex(k % 4096), 3, '0')
	         || '8' || lpad(to_hex(k), 15, '0'),
	       org, env, fn, ln, phone, email, status, at, at, at, lower(fn || ' ' || ln || ' ' || email || ' ' || phone)
	FROM (
		SELECT k, at, fn, ln, org, env, status, phone,
		       lower(fn) || '.' || lower(ln) || k || '@' ||
		       (ARRAY['gmail.com','gmail.com','gmail.com','yahoo.com','yahoo.com','outlook.com','lender.ng'])[1 + abs(hashint8extended(k, 4)) % 7] AS email
		FROM (
			SELECT k, $3::timestamptz + k * $4::bigint * interval '1 microsecond' AS at,
			       (ARRAY['Chiamaka','Emeka','Ngozi','Tunde','Aisha','Bola','Chinedu','Fatima','Ibrahim','Kemi',
			              'Musa','Nneka','Olumide','Sade','Uche','Yusuf','Zainab','Obinna','Halima','Segun'])[1 + abs(hashint8extended(k, 1)) % 20] AS fn,
			       (ARRAY['Okafor','Adeyemi','Bello','Eze','Ibrahim','Nwosu','Ogunleye','Okeke','Olawale','Suleiman',
			              'Abubakar','Balogun','Chukwu','Danjuma','Ekwueme','Fashola','Garba','Ihejirika','Johnson','Kalu'])[1 + abs(hashint8extended(k, 2)) % 20] AS ln,
			       CASE WHEN mine THEN '` + benchOrg + `' ELSE 'org_other_' || lpad((abs(hashint8extended(k, 5)) % $6)::text, 3, '0') END AS org,
			       CASE WHEN NOT mine AND abs(hashint8extended(k, 6)) % 4 = 0 THEN 'test' ELSE 'live' END AS env,
			       (ARRAY['PENDING','PENDING','PENDING','IN_PROGRESS','IN_PROGRESS','VERIFIED','VERIFIED','VERIFIED','REJECTED'])[1 + abs(hashint8extended(k, 3)) % 9] AS status,
			       '+23480' || lpad(((k * 829348951) % 100000000)::text, 8, '0') AS phone
			FROM (SELECT k, ((k + 1) * $5) / $7 > (k * $5) / $7 AS mine FROM generate_series($1::bigint, $2::bigint - 1) k) s
		) t
	) u
	RETURNING id, created_at
)
INSERT INTO addresses (id, customer_id, position, street_name, city, state, country, status, created_at, updated_at)
SELECT 'adr_' || substr(id, 5), id, 0, 'Adeola Odeku Street', 'Lagos', 'Lagos', 'Nigeria', 'PENDING', created_at, created_at FROM c`

// seed fills an empty, migrated database with l. Secondary indexes are
// dropped for the load and rebuilt from their own definitions afterwards
// (building an index once is many times cheaper than maintaining it row
// by row), so the schema measured is exactly the migrated one.
func seed(ctx context.Context, dbURL string, l layout) error {
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	if l.tenants > 1000 {
		return errors.New("at most 1000 other organizations")
	}
	log.Printf("seeding %s (first run only)", l)
	start := time.Now()
	rows, err := conn.Query(ctx, `
		SELECT i.indexrelid::regclass::text, pg_get_indexdef(i.indexrelid) FROM pg_index i
		 WHERE i.indrelid IN ('customers'::regclass, 'addresses'::regclass)
		   AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)
		 ORDER BY 1`)
	if err != nil {
		return err
	}
	type index struct{ Name, Def string }
	indexes, err := pgx.CollectRows(rows, pgx.RowToStructByPos[index])
	if err != nil {
		return err
	}
	for _, ix := range indexes {
		if _, err := conn.Exec(ctx, "DROP INDEX "+ix.Name); err != nil {
			return err
		}
	}
	// The addresses' foreign key is right by construction; checking it
	// row by row would double the load time.
	if _, err := conn.Exec(ctx, `SET session_replication_role = replica`); err != nil {
		return err
	}
	total := int64(l.total())
	step := int64(time.Minute/time.Microsecond) * int64(l.rows) / total // the measured org gets one customer a minute
	base := time.Now().Add(-time.Duration(total*step) * time.Microsecond).UTC()
	const batch = 250_000
	for lo := int64(0); lo < total; lo += batch {
		hi := min(lo+batch, total)
		if _, err := conn.Exec(ctx, genSQL, lo, hi, base, step, l.rows, max(l.tenants, 1), total); err != nil {
			return err
		}
		log.Printf("  %d/%d rows (%s)", hi, total, time.Since(start).Round(time.Second))
	}
	if _, err := conn.Exec(ctx, `SET maintenance_work_mem = '512MB'`); err != nil {
		return err
	}
	for _, ix := range indexes {
		t0 := time.Now()
		if _, err := conn.Exec(ctx, ix.Def); err != nil {
			return err
		}
		log.Printf("  index %s built in %s", ix.Name, time.Since(t0).Round(time.Second))
	}
	for _, q := range []string{
		`INSERT INTO customer_counts (org_id, env, status, n)
		 SELECT org_id, env, coalesce(status, 'ALL'), count(*) FROM customers WHERE deleted_at IS NULL
		  GROUP BY GROUPING SETS ((org_id, env, status), (org_id, env))`,
		`VACUUM ANALYZE customers`, `VACUUM ANALYZE addresses`, `VACUUM ANALYZE customer_counts`,
		`CREATE TABLE listbench_seed (rows bigint, tenants int, other_rows bigint)`,
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			return err
		}
	}
	if _, err := conn.Exec(ctx, `INSERT INTO listbench_seed VALUES ($1, $2, $3)`, l.rows, l.tenants, l.otherRows); err != nil {
		return err
	}
	log.Printf("seeded in %s", time.Since(start).Round(time.Second))
	return nil
}
