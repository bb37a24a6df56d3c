package migrations

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/kycfield/kyc/pkg/matchkey"
)

// backfillBatch is how many customers one transaction of the backfill
// keys: small enough that each holds its row locks for milliseconds.
const backfillBatch = 1000

// backfillIdentityKeys fills loan_key and email_key for every customer
// without them, walking the table in id order (ids sort by creation) in
// batches that each commit. It can run again from the start: rows that
// have their keys are skipped.
func backfillIdentityKeys(ctx context.Context, conn *pgx.Conn) error {
	after := ""
	for {
		rows, err := conn.Query(ctx, `SELECT id, org_id, env, coalesce(loan_id, ''), coalesce(email, ''),
			deleted_at IS NULL AND relog_reason IS NULL FROM customers
			WHERE id > $1 AND (loan_id IS NOT NULL AND loan_key IS NULL OR email IS NOT NULL AND email_key IS NULL)
			ORDER BY id LIMIT $2`, after, backfillBatch)
		if err != nil {
			return err
		}
		batch, err := pgx.CollectRows(rows, pgx.RowToStructByPos[keyRow])
		if err != nil || len(batch) == 0 {
			return err
		}
		if err := keyBatch(ctx, conn, batch); err != nil {
			return err
		}
		after = batch[len(batch)-1].ID
	}
}

type keyRow struct {
	ID, OrgID, Env, LoanID, Email string
	// Unique says the row is under the unique indexes (live, not relogged).
	Unique bool
}

// keyBatch keys one batch in one transaction. A key another customer
// under the unique index already holds (an older one: the walk is in
// creation order, and this batch's own rows are claimed in order too) is
// left unset, as is a key a concurrent write takes meanwhile: the
// statement skips it rather than fail.
func keyBatch(ctx context.Context, conn *pgx.Conn, batch []keyRow) error {
	for _, f := range []struct {
		column string
		key    func(keyRow) string
	}{
		{"loan_key", func(r keyRow) string { return matchkey.Reference(r.LoanID) }},
		{"email_key", func(r keyRow) string { return matchkey.Email(r.Email) }},
	} {
		ids, keys := claim(batch, f.key)
		if len(ids) == 0 {
			continue
		}
		// The NOT EXISTS finds holders through the unique index; what it
		// cannot see (a write committed after this snapshot) the unique
		// index refuses, and the batch is tried again.
		sql := fmt.Sprintf(`UPDATE customers c SET %[1]s = u.k FROM unnest($1::text[], $2::text[]) u(id, k)
			WHERE c.id = u.id AND c.%[1]s IS NULL AND (c.deleted_at IS NOT NULL OR c.relog_reason IS NOT NULL OR NOT EXISTS (
				SELECT 1 FROM customers o WHERE o.org_id = c.org_id AND o.env = c.env AND o.%[1]s = u.k
				AND o.deleted_at IS NULL AND o.relog_reason IS NULL AND o.id <> c.id))`, f.column)
		var err error
		for range 3 {
			if _, err = conn.Exec(ctx, sql, ids, keys); !isUniqueViolation(err) {
				break
			}
		}
		if err != nil {
			return fmt.Errorf("backfill %s: %w", f.column, err)
		}
	}
	return nil
}

// claim lists the rows of batch to key and their keys: every row with a
// value, but of the rows under the unique index only the first of each
// organization, environment and key.
func claim(batch []keyRow, key func(keyRow) string) (ids, keys []string) {
	seen := map[[3]string]bool{}
	for _, r := range batch {
		k := key(r)
		if k == "" {
			continue
		}
		if r.Unique {
			tk := [3]string{r.OrgID, r.Env, k}
			if seen[tk] {
				continue
			}
			seen[tk] = true
		}
		ids, keys = append(ids, r.ID), append(keys, k)
	}
	return ids, keys
}

func isUniqueViolation(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505"
}
