package main

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/jackc/pgx/v5"
)

// seed gives every customer of the customer database a case in the
// verification database, with one VERIFIED address (its timeline and
// verification data as the sandbox writes them) and two photos, unless an
// earlier run did.
func seed(ctx context.Context, verURL, custURL string, n int) error {
	ver, err := pgx.Connect(ctx, verURL)
	if err != nil {
		return err
	}
	defer ver.Close(ctx)
	var have int
	if err := ver.QueryRow(ctx, `SELECT count(*) FROM cases`).Scan(&have); err != nil {
		return err
	}
	if have >= n {
		log.Printf("verification database already holds %d cases", have)
		return nil
	}
	start := time.Now()
	cust, err := pgx.Connect(ctx, custURL)
	if err != nil {
		return err
	}
	defer cust.Close(ctx)
	if _, err := ver.Exec(ctx, `TRUNCATE photos, jobs, cases, case_counts, turnaround`); err != nil {
		return err
	}
	rows, err := cust.Query(ctx, `SELECT id, org_id, env, first_name, last_name, phone, coalesce(loan_id, ''), coalesce(loan_type, ''),
		created_at FROM customers WHERE deleted_at IS NULL`)
	if err != nil {
		return err
	}
	copied, err := ver.CopyFrom(ctx, pgx.Identifier{"cases"},
		[]string{"customer_id", "org_id", "env", "first_name", "last_name", "phone", "loan_id", "loan_type", "status", "verification_date", "created_at", "updated_at"},
		pgx.CopyFromFunc(func() ([]any, error) {
			if !rows.Next() {
				return nil, rows.Err()
			}
			v, err := rows.Values()
			if err != nil {
				return nil, err
			}
			created := v[8].(time.Time)
			done := created.Add(5 * time.Second)
			return append(v[:8], "VERIFIED", done, created, done), nil
		}))
	if err != nil {
		return fmt.Errorf("copy cases: %w", err)
	}
	log.Printf("copied %d cases in %s", copied, time.Since(start).Round(time.Second))
	for _, q := range []string{
		`INSERT INTO jobs (address_id, customer_id, org_id, env, position, address, status, sequence, timeline, result, created_at, updated_at, completed_at)
		 SELECT 'adr_' || substr(md5(customer_id), 1, 32), customer_id, org_id, env, 0,
			'{"streetName": "Adeola Odeku Street", "city": "Victoria Island", "state": "Lagos", "country": "Nigeria"}',
			'VERIFIED', 4,
			jsonb_build_array(jsonb_build_object('status', 'PENDING', 'at', created_at, 'by', 'system'),
				jsonb_build_object('status', 'ASSIGNED', 'at', verification_date, 'by', 'sandbox'),
				jsonb_build_object('status', 'IN_PROGRESS', 'at', verification_date, 'by', 'sandbox'),
				jsonb_build_object('status', 'VERIFIED', 'at', verification_date, 'by', 'sandbox')),
			jsonb_build_object('verifiedAddress', 'Adeola Odeku Street, Victoria Island, Lagos, Nigeria', 'verifiedAt', verification_date,
				'verifiedLatitude', 6.4281, 'verifiedLongitude', 3.4219, 'agentNotes', 'Customer confirmed resident.',
				'agent', jsonb_build_object('id', 'agt_sandbox', 'name', 'Sandbox Agent')),
			created_at, verification_date, verification_date
		 FROM cases`,
		`INSERT INTO photos (id, address_id, customer_id, org_id, env, tag, object_key, content_type, size, captured_at, created_at)
		 SELECT 'pho_' || substr(md5(j.address_id || t.tag), 1, 32), j.address_id, j.customer_id, j.org_id, j.env, t.tag,
			'sandbox/' || t.tag || '.jpg', 'image/jpeg', 20000, j.completed_at, j.completed_at
		 FROM jobs j CROSS JOIN (VALUES ('building_front'), ('street_view')) AS t(tag)`,
		`INSERT INTO case_counts SELECT org_id, env, 'ALL', count(*) FROM cases GROUP BY 1, 2
		 UNION ALL SELECT org_id, env, 'VERIFIED', count(*) FROM cases GROUP BY 1, 2`,
		`ANALYZE cases, jobs, photos`,
	} {
		if _, err := ver.Exec(ctx, q); err != nil {
			return fmt.Errorf("seed: %w", err)
		}
	}
	log.Printf("seeded %d cases, jobs and photos in %s", copied, time.Since(start).Round(time.Second))
	return nil
}
