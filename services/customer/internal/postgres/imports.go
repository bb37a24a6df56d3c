package postgres

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/pkg/pgdb"
	"github.com/kycfield/kyc/services/customer/internal/customer"
)

// ImportNotifyChannel announces a started import to the workers (NOTIFY
// is sent at the start's commit).
const ImportNotifyChannel = "customer_imports"

// sealCells encrypts a row's cells, bound to its job and row.
func (s *Store) sealCells(importID string, row int, cells map[string]string) ([]byte, error) {
	b, err := json.Marshal(cells)
	if err != nil {
		return nil, err
	}
	return s.keys.Seal(b, cellsAAD(importID, row)), nil
}

func (s *Store) openCells(importID string, row int, sealed []byte) (map[string]string, error) {
	b, err := s.keys.Open(sealed, cellsAAD(importID, row))
	if err != nil {
		return nil, err
	}
	cells := map[string]string{}
	return cells, json.Unmarshal(b, &cells)
}

func cellsAAD(importID string, row int) []byte {
	return []byte("import|" + importID + "|" + strconv.Itoa(row))
}

const importCols = `id, org_id, env, file_name, file_sha256, status, total_rows, valid_rows, created_rows, failed_rows,
	record_limit, problems, created_at, started_at, finished_at`

func scanImport(row pgx.Row) (customer.Import, error) {
	var im customer.Import
	var probs []byte
	err := row.Scan(&im.ID, &im.OrgID, &im.Env, &im.FileName, &im.FileSHA256, &im.Status, &im.TotalRows, &im.ValidRows,
		&im.CreatedRows, &im.FailedRows, &im.RecordLimit, &probs, &im.CreatedAt, &im.StartedAt, &im.FinishedAt)
	if pgdb.IsNoRows(err) {
		return im, customer.ErrImportNotFound
	}
	if err != nil {
		return im, err
	}
	return im, json.Unmarshal(probs, &im.Problems)
}

// SaveImport records the job and its rows in one transaction, or returns
// the job of the same file.
func (s *Store) SaveImport(ctx context.Context, im customer.Import, rows []customer.ImportRowState, audit customer.Audit) (customer.Import, bool, error) {
	probs, err := json.Marshal(nonNil(im.Problems))
	if err != nil {
		return im, false, err
	}
	sealed := make([][]any, len(rows))
	for i, r := range rows {
		enc, err := s.sealCells(im.ID, r.Row, r.Cells)
		if err != nil {
			return im, false, err
		}
		sealed[i] = []any{im.ID, r.Row, r.State, enc}
	}
	existing := false
	err = s.Transact(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `INSERT INTO imports (id, org_id, env, file_name, file_sha256, status, total_rows, valid_rows,
			record_limit, problems, created_at) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11)
			ON CONFLICT (org_id, env, file_sha256) DO NOTHING`,
			im.ID, im.OrgID, im.Env, im.FileName, im.FileSHA256, im.Status, im.TotalRows, im.ValidRows, im.RecordLimit, probs, im.CreatedAt)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			existing = true
			im, err = scanImport(tx.QueryRow(ctx, `SELECT `+importCols+` FROM imports WHERE org_id = $1 AND env = $2 AND file_sha256 = $3`,
				im.OrgID, im.Env, im.FileSHA256))
			return err
		}
		if _, err = tx.CopyFrom(ctx, pgx.Identifier{"import_rows"}, []string{"import_id", "row", "state", "cells_enc"}, pgx.CopyFromRows(sealed)); err != nil {
			return err
		}
		return s.audit(ctx, tx, audit)
	})
	return im, existing, err
}

func nonNil(p []customer.Problem) []customer.Problem {
	if p == nil {
		return []customer.Problem{}
	}
	return p
}

// GetImport reads a job of an organization's environment.
func (s *Store) GetImport(ctx context.Context, orgID, env, id string) (customer.Import, error) {
	return scanImport(s.Pool().QueryRow(ctx, `SELECT `+importCols+` FROM imports WHERE id = $1 AND org_id = $2 AND env = $3`, id, orgID, env))
}

// StartImport starts a VALIDATED job and wakes the workers.
func (s *Store) StartImport(ctx context.Context, orgID, env, id string, at time.Time, audit customer.Audit) (customer.Import, bool, error) {
	var im customer.Import
	started := false
	err := s.Transact(ctx, func(tx pgx.Tx) error {
		var err error
		im, err = scanImport(tx.QueryRow(ctx, `UPDATE imports SET started_at = $4,
			status = CASE WHEN valid_rows = 0 THEN 'COMPLETED' ELSE 'RUNNING' END,
			finished_at = CASE WHEN valid_rows = 0 THEN $4::timestamptz END
			WHERE id = $1 AND org_id = $2 AND env = $3 AND status = 'VALIDATED' RETURNING `+importCols, id, orgID, env, at))
		if err == customer.ErrImportNotFound {
			im, err = scanImport(tx.QueryRow(ctx, `SELECT `+importCols+` FROM imports WHERE id = $1 AND org_id = $2 AND env = $3`, id, orgID, env))
			return err
		}
		if err != nil {
			return err
		}
		started = true
		if _, err = tx.Exec(ctx, `SELECT pg_notify($1, '')`, ImportNotifyChannel); err != nil {
			return err
		}
		return s.audit(ctx, tx, audit)
	})
	return im, started, err
}

// ImportRows reads every row of a job with its outcome (cells left
// sealed: the results name rows, not their contents).
func (s *Store) ImportRows(ctx context.Context, orgID, env, id string) ([]customer.ImportRowState, error) {
	rows, err := s.Pool().Query(ctx, `SELECT r.row, r.state, coalesce(r.customer_id, ''), coalesce(r.error, '')
		FROM import_rows r JOIN imports i ON i.id = r.import_id
		WHERE r.import_id = $1 AND i.org_id = $2 AND i.env = $3 ORDER BY r.row`, id, orgID, env)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (customer.ImportRowState, error) {
		st := customer.ImportRowState{ImportID: id}
		return st, r.Scan(&st.Row, &st.State, &st.CustomerID, &st.Error)
	})
}

// ExistingIdentities looks the keys up in one round trip, on the
// duplicate rule's indexes.
func (s *Store) ExistingIdentities(ctx context.Context, orgID, env string, keys map[string][]string) (map[string]map[string]string, error) {
	rows, err := s.Pool().Query(ctx, `
		SELECT 'phone', phone, id FROM customers WHERE org_id = $1 AND env = $2 AND deleted_at IS NULL AND phone = ANY($3)
		UNION ALL
		SELECT 'email', email_key, id FROM customers WHERE org_id = $1 AND env = $2 AND deleted_at IS NULL AND email_key = ANY($4)
		UNION ALL
		SELECT 'loanId', loan_key, id FROM customers WHERE org_id = $1 AND env = $2 AND deleted_at IS NULL AND loan_key = ANY($5)`,
		orgID, env, keys["phone"], keys["email"], keys["loanId"])
	if err != nil {
		return nil, err
	}
	out := map[string]map[string]string{}
	var field, key, id string
	_, err = pgx.ForEachRow(rows, []any{&field, &key, &id}, func() error {
		if out[field] == nil {
			out[field] = map[string]string{}
		}
		out[field][key] = id
		return nil
	})
	return out, err
}

func (t *txn) ClaimImportRows(ctx context.Context, n int) ([]customer.ImportRowState, error) {
	// From after the last row this process claimed: the pending index
	// keeps the entries of rows already done until a vacuum, and starting
	// after them keeps each claim from walking them all again. From the
	// start when nothing is left after it (a row left pending by a
	// failure, another job).
	after := t.s.claimHint()
	for {
		rows, err := t.tx.Query(ctx, `SELECT r.import_id, r.row, r.state, r.cells_enc, i.org_id, i.env, i.record_limit
			FROM imports i JOIN import_rows r ON r.import_id = i.id
			WHERE i.status = 'RUNNING' AND r.state = 'PENDING' AND (r.import_id, r.row) > ($1, $2)
			ORDER BY r.import_id, r.row LIMIT $3 FOR UPDATE OF r SKIP LOCKED`, after.importID, after.row, n)
		if err != nil {
			return nil, err
		}
		claimed, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (customer.ImportRowState, error) {
			var st customer.ImportRowState
			var sealed []byte
			if err := r.Scan(&st.ImportID, &st.Row, &st.State, &sealed, &st.OrgID, &st.Env, &st.RecordLimit); err != nil {
				return st, err
			}
			cells, err := t.s.openCells(st.ImportID, st.Row, sealed)
			st.Cells = cells
			return st, err
		})
		if err != nil {
			return nil, err
		}
		if len(claimed) > 0 {
			last := claimed[len(claimed)-1]
			t.s.setClaimHint(claimPos{last.ImportID, last.Row})
			return claimed, nil
		}
		if after == (claimPos{}) {
			return nil, nil
		}
		after = claimPos{}
	}
}

// Savepoint runs fn in a savepoint (pgx nests a transaction as one).
func (t *txn) Savepoint(ctx context.Context, fn func() error) error {
	sp, err := t.tx.Begin(ctx)
	if err != nil {
		return err
	}
	outer := t.tx
	t.tx = sp // fn's statements go through the savepoint
	err = fn()
	t.tx = outer
	if err != nil {
		_ = sp.Rollback(ctx)
		return err
	}
	return sp.Commit(ctx)
}

// claimPos is where this process last claimed an import row.
type claimPos struct {
	importID string
	row      int
}

func (s *Store) claimHint() claimPos {
	s.hintMu.Lock()
	defer s.hintMu.Unlock()
	return s.hint
}

func (s *Store) setClaimHint(p claimPos) {
	s.hintMu.Lock()
	s.hint = p
	s.hintMu.Unlock()
}

func (t *txn) FinishImportRow(ctx context.Context, row customer.ImportRowState, at time.Time) error {
	created := 0
	if row.State == customer.RowCreated {
		created = 1
	}
	b := &pgx.Batch{}
	b.Queue(`UPDATE import_rows SET state = $3, customer_id = nullif($4, ''), error = nullif($5, '')
		WHERE import_id = $1 AND row = $2`, row.ImportID, row.Row, row.State, row.CustomerID, row.Error)
	b.Queue(`UPDATE imports SET created_rows = created_rows + $2, failed_rows = failed_rows + 1 - $2,
		status = CASE WHEN created_rows + failed_rows + 1 >= valid_rows THEN 'COMPLETED' ELSE status END,
		finished_at = CASE WHEN created_rows + failed_rows + 1 >= valid_rows THEN $3::timestamptz END
		WHERE id = $1`, row.ImportID, created, at)
	return t.tx.SendBatch(ctx, b).Close()
}

// DailyResults reads the customers decided since from on the
// customers_decided index (migration 008).
func (s *Store) DailyResults(ctx context.Context, orgID, env string, from time.Time) (map[string][2]int64, error) {
	rows, err := s.Pool().Query(ctx, `SELECT to_char(verification_date AT TIME ZONE 'UTC', 'YYYY-MM-DD'), status, count(*)
		FROM customers WHERE org_id = $1 AND env = $2 AND deleted_at IS NULL AND status IN ('VERIFIED', 'REJECTED')
		AND verification_date >= $3 GROUP BY 1, 2`, orgID, env, from)
	if err != nil {
		return nil, err
	}
	out := map[string][2]int64{}
	var day, status string
	var n int64
	_, err = pgx.ForEachRow(rows, []any{&day, &status, &n}, func() error {
		c := out[day]
		if status == customer.StatusVerified {
			c[0] = n
		} else {
			c[1] = n
		}
		out[day] = c
		return nil
	})
	return out, err
}
