package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/pkg/pgdb"
	"github.com/kycfield/kyc/services/verification/internal/verification"
)

// snapshot runs fn's reads in one REPEATABLE READ, READ ONLY transaction:
// a job and its case's status change together, and a read must never show
// one without the other.
func (s *Store) snapshot(ctx context.Context, fn func(pgx.Tx) error) error {
	return pgdb.Translate(pgx.BeginTxFunc(ctx, s.Pool(), pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, fn))
}

// Case reads a live case of the organization and environment.
func (s *Store) Case(ctx context.Context, orgID, env, customerID string) (verification.Case, error) {
	var c verification.Case
	err := s.snapshot(ctx, func(tx pgx.Tx) (err error) {
		c, err = scanCase(tx.QueryRow(ctx, `SELECT `+caseCols+` FROM cases
			WHERE customer_id = $1 AND org_id = $2 AND env = $3 AND deleted_at IS NULL`, customerID, orgID, env))
		if err != nil {
			return err
		}
		return jobs(ctx, tx, &c, false, true)
	})
	return c, err
}

// Stats reads the counters.
func (s *Store) Stats(ctx context.Context, orgID, env string) (verification.Stats, error) {
	var st verification.Stats
	err := s.snapshot(ctx, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT status, n FROM case_counts WHERE org_id = $1 AND env = $2`, orgID, env)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var status string
			var n int64
			if err := rows.Scan(&status, &n); err != nil {
				return err
			}
			switch status {
			case "ALL":
				st.Total = n
			case verification.Pending:
				st.Pending = n
			case verification.InProgress:
				st.InProgress = n
			case verification.Verified:
				st.Verified = n
			case verification.Rejected:
				st.Rejected = n
			}
		}
		if err := rows.Err(); err != nil {
			return err
		}
		var secs float64
		var n int64
		err = tx.QueryRow(ctx, `SELECT seconds, n FROM turnaround WHERE org_id = $1 AND env = $2`, orgID, env).Scan(&secs, &n)
		if pgdb.IsNoRows(err) || n == 0 {
			return nil
		}
		avg := time.Duration(secs / float64(n) * float64(time.Second))
		st.AverageTurnaround = &avg
		return err
	})
	return st, err
}

// Photo reads one photo of a live case of the organization and environment.
func (s *Store) Photo(ctx context.Context, orgID, env, customerID, photoID string) (verification.Photo, error) {
	p, err := scanPhoto(s.Pool().QueryRow(ctx, `SELECT `+prefixed("p.", photoCols)+`
		FROM photos p JOIN cases c ON c.customer_id = p.customer_id
		WHERE p.id = $1 AND p.customer_id = $2 AND p.org_id = $3 AND p.env = $4 AND c.deleted_at IS NULL`,
		photoID, customerID, orgID, env))
	if pgdb.IsNoRows(err) {
		return p, verification.ErrPhotoNotFound
	}
	return p, pgdb.Translate(err)
}
