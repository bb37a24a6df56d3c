package customer

import (
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/ids"
)

// The bulk import: a file is read and every row checked by Check (the
// rules of POST /api/v1/customers) and the duplicate rule, within the
// file and against the customers already there, before anything is
// created. Started, the job creates its valid rows in the background,
// each in the transaction that records the row as done, so a row is
// created once however often the job is retried or the service
// restarted.

// Import statuses.
const (
	ImportValidated = "VALIDATED" // read and checked; waits to be started
	ImportRunning   = "RUNNING"   // creating its valid rows
	ImportCompleted = "COMPLETED" // every valid row created or failed
)

// Import row states.
const (
	RowInvalid = "INVALID" // refused by the check; never created
	RowPending = "PENDING" // valid; to be created
	RowCreated = "CREATED"
	RowFailed  = "FAILED" // refused at creation (a duplicate created meanwhile)
)

// Import is an import job.
type Import struct {
	ID, OrgID, Env string
	FileName       string
	FileSHA256     string
	Status         string
	TotalRows      int
	ValidRows      int
	CreatedRows    int
	FailedRows     int
	RecordLimit    int
	Problems       []Problem
	CreatedAt      time.Time
	StartedAt      *time.Time
	FinishedAt     *time.Time
}

// ImportRowState is a row of a job as stored: its cells (sealed at
// rest: they hold BVNs), state and outcome.
type ImportRowState struct {
	ImportID   string
	Row        int
	State      string
	Cells      map[string]string
	CustomerID string
	Error      string
	// The job's caller, for creating the row.
	OrgID, Env  string
	RecordLimit int
}

// ImportStore keeps import jobs; every read is scoped by organization
// and environment.
type ImportStore interface {
	// SaveImport records a checked job and its rows with audit, or returns
	// the job already recorded for the same file (existing true: nothing
	// is recorded, the upload is not a new change).
	SaveImport(ctx context.Context, im Import, rows []ImportRowState, audit Audit) (Import, bool, error)
	GetImport(ctx context.Context, orgID, env, id string) (Import, error)
	// StartImport moves a VALIDATED job to RUNNING (COMPLETED when it has
	// no valid rows) and records audit; started is false (and nothing is
	// recorded) when it had already been started.
	StartImport(ctx context.Context, orgID, env, id string, at time.Time, audit Audit) (im Import, started bool, err error)
	ImportRows(ctx context.Context, orgID, env, id string) ([]ImportRowState, error)
	// ExistingIdentities returns, of the given comparison keys by field,
	// those a live customer holds, with its id.
	ExistingIdentities(ctx context.Context, orgID, env string, keys map[string][]string) (map[string]map[string]string, error)
}

// ImportTx is what creating import rows does in a transaction.
type ImportTx interface {
	// ClaimImportRows locks up to n pending rows of running jobs, skipping
	// rows other workers hold.
	ClaimImportRows(ctx context.Context, n int) ([]ImportRowState, error)
	// Savepoint runs fn so that its error undoes only what fn did.
	Savepoint(ctx context.Context, fn func() error) error
	// FinishImportRow records a claimed row's outcome and counts it; the
	// last one completes its job.
	FinishImportRow(ctx context.Context, row ImportRowState, at time.Time) error
}

// ErrImportNotFound is answered for unknown and foreign ids alike.
var ErrImportNotFound = apperr.NotFound("Import")

// ValidateImport reads and checks a file and records the job, with its
// problems, unstarted. The same file uploaded again (same bytes, same
// organization and environment) is the same job.
func (s *Service) ValidateImport(ctx context.Context, who Caller, fileName string, file io.Reader) (Import, bool, error) {
	h := sha256.New()
	rows, probs, err := ParseImport(io.TeeReader(file, h))
	if err != nil {
		return Import{}, false, err
	}
	if _, err := io.Copy(h, file); err != nil { // the hash covers all of it
		return Import{}, false, err
	}
	states, more := s.checkRows(who, rows)
	probs = append(probs, more...)
	if err := s.checkExisting(ctx, who, states, &probs); err != nil {
		return Import{}, false, err
	}
	slices.SortStableFunc(probs, func(a, b Problem) int { return a.Row - b.Row })
	im := Import{ID: ids.New("imp"), OrgID: who.OrgID, Env: who.Env, FileName: fileName, FileSHA256: hex.EncodeToString(h.Sum(nil)),
		Status: ImportValidated, TotalRows: len(rows) + countBadLines(probs), Problems: probs, CreatedAt: s.now().UTC()}
	for _, st := range states {
		if st.State == RowPending {
			im.ValidRows++
		}
	}
	if s.imports == nil {
		return Import{}, false, errors.New("customer: no import store")
	}
	return s.imports.SaveImport(ctx, im, states, Audit{Action: ActionImportCreate, Target: im.ID,
		Details: map[string]any{"fileName": fileName, "totalRows": im.TotalRows, "validRows": im.ValidRows}})
}

// countBadLines counts the rows that could not be read at all (they are
// rows of the file, with a problem, but no state).
func countBadLines(probs []Problem) int {
	n := 0
	for _, p := range probs {
		if p.Code == CodeImportFileInvalid {
			n++
		}
	}
	return n
}

// checkRows checks each row by Check and the duplicate rule within the
// file: a later row sharing a phone, email or loanId with an earlier
// valid one is refused, naming it.
func (s *Service) checkRows(who Caller, rows []ImportRow) ([]ImportRowState, []Problem) {
	states := make([]ImportRowState, len(rows))
	var probs []Problem
	firstBy := map[string]int{} // field|key -> row
	for i, r := range rows {
		states[i] = ImportRowState{Row: r.Row, Cells: r.Cells, State: RowPending}
		in, groups := r.Input()
		c, err := s.Check(who, in)
		if err != nil {
			probs = append(probs, rowProblems(r.Row, groups, err)...)
			states[i].State = RowInvalid
			continue
		}
		if c.RelogReason != "" {
			continue
		}
		var dups []Problem
		for field, key := range identity(c, nil) {
			if first, ok := firstBy[field+"|"+key]; ok {
				dups = append(dups, Problem{Row: r.Row, Column: field, Code: CodeDuplicate,
					Message: fmt.Sprintf("matches row %d of this file", first)})
			}
		}
		if len(dups) > 0 {
			slices.SortFunc(dups, func(a, b Problem) int { return strings.Compare(a.Column, b.Column) })
			probs = append(probs, dups...)
			states[i].State = RowInvalid
			continue
		}
		for field, key := range identity(c, nil) {
			firstBy[field+"|"+key] = r.Row
		}
	}
	return states, probs
}

// rowProblems turns Check's validation error into problems by column.
func rowProblems(row int, groups []int, err error) []Problem {
	e, ok := apperr.As(err)
	if !ok || len(e.Details) == 0 {
		return []Problem{{Row: row, Code: apperr.CodeValidation, Message: err.Error()}}
	}
	out := make([]Problem, 0, len(e.Details))
	for _, d := range e.Details {
		out = append(out, Problem{Row: row, Column: columnOf(d.Field, groups), Code: e.Code, Message: d.Message, Suggestions: d.Suggestions})
	}
	return out
}

// checkExisting refuses the valid rows that a live customer already
// matches (the duplicate rule; relogged rows are exempt, as in the API).
func (s *Service) checkExisting(ctx context.Context, who Caller, states []ImportRowState, probs *[]Problem) error {
	keysOf := make([]map[string]string, len(states))
	want := map[string][]string{}
	for i, st := range states {
		if st.State != RowPending {
			continue
		}
		in, _ := ImportRow{Row: st.Row, Cells: st.Cells}.Input()
		c, _ := s.Check(who, in)
		if c.RelogReason != "" {
			continue
		}
		keysOf[i] = identity(c, nil)
		for f, k := range keysOf[i] {
			want[f] = append(want[f], k)
		}
	}
	if len(want) == 0 || s.imports == nil {
		return nil
	}
	held, err := s.imports.ExistingIdentities(ctx, who.OrgID, who.Env, want)
	if err != nil {
		return err
	}
	for i, keys := range keysOf {
		fields := make([]string, 0, len(keys))
		for f := range keys {
			fields = append(fields, f)
		}
		slices.Sort(fields)
		for _, f := range fields {
			if id, ok := held[f][keys[f]]; ok {
				*probs = append(*probs, Problem{Row: states[i].Row, Column: f, Code: CodeDuplicate,
					Message: "matches an existing customer", ExistingID: id})
				states[i].State = RowInvalid
			}
		}
	}
	return nil
}

// GetImport returns a job of the caller.
func (s *Service) GetImport(ctx context.Context, who Caller, id string) (Import, error) {
	if !ids.Valid("imp", id) {
		return Import{}, ErrImportNotFound
	}
	return s.imports.GetImport(ctx, who.OrgID, who.Env, id)
}

// StartImport starts creating a job's valid rows. rows must be the job's
// count of valid rows: it is what the caller was charged for (the
// gateway takes that many requests from the daily quota), so a mismatch
// is refused before anything is created. Starting a started job changes
// nothing (started false).
func (s *Service) StartImport(ctx context.Context, who Caller, id string, rows int) (Import, bool, error) {
	im, err := s.GetImport(ctx, who, id)
	if err != nil {
		return im, false, err
	}
	if rows != im.ValidRows {
		return im, false, apperr.New(apperr.KindUnprocessable, CodeImportRowsMismatch,
			"rows must be "+strconv.Itoa(im.ValidRows)+", the number of valid rows this import will create").
			WithDetails(apperr.Detail{Field: "rows", Message: "must equal the import's validRows"})
	}
	return s.imports.StartImport(ctx, who.OrgID, who.Env, id, s.now().UTC(),
		Audit{Action: ActionImportStart, Target: id, Details: map[string]any{"rows": rows}})
}

// ImportRows returns every row of a job with its outcome.
func (s *Service) ImportRows(ctx context.Context, who Caller, id string) ([]ImportRowState, error) {
	if _, err := s.GetImport(ctx, who, id); err != nil {
		return nil, err
	}
	return s.imports.ImportRows(ctx, who.OrgID, who.Env, id)
}

// importBatch is how many rows one transaction creates: one commit (one
// disk flush) for all of them.
const importBatch = 25

// CreateImportRows creates the next pending rows of running jobs, each
// in the transaction that marks it done: a crash before the commit leaves
// them pending (created again, once), after leaves them done. A row the
// rules refuse now (a duplicate created since the check) is recorded as
// failed, its own changes undone (a savepoint), the others kept. It
// returns how many rows it finished.
func (s *Service) CreateImportRows(ctx context.Context) (int, error) {
	var n int
	err := s.store.Atomic(ctx, func(tx Tx) error {
		n = 0
		rows, err := tx.ClaimImportRows(ctx, importBatch)
		if err != nil {
			return err
		}
		for _, row := range rows {
			who := Caller{OrgID: row.OrgID, Env: row.Env, RecordLimit: row.RecordLimit}
			in, _ := ImportRow{Row: row.Row, Cells: row.Cells}.Input()
			c, err := s.Check(who, in)
			if err == nil {
				err = tx.Savepoint(ctx, func() error { return insertNew(ctx, tx, who, c, nil) })
			}
			switch {
			case err == nil:
				row.State, row.CustomerID = RowCreated, c.ID
			case refusal(err):
				row.State, row.Error = RowFailed, errorText(err)
			default:
				return err // the whole batch again, later
			}
			if err := tx.FinishImportRow(ctx, row, s.now().UTC()); err != nil {
				return err
			}
		}
		n = len(rows)
		return nil
	})
	return n, err
}

// errorText is a refusal as one line of the results file.
func errorText(err error) string {
	e, ok := apperr.As(err)
	if !ok {
		return err.Error()
	}
	parts := []string{e.Code + ": " + e.Message}
	for _, d := range e.Details {
		if d.Field != "" {
			parts = append(parts, d.Field+" "+d.Message)
		}
	}
	return strings.Join(parts, "; ")
}

// refusal reports whether err is the rules refusing a row (recorded as
// the row's failure) rather than a failure to retry (a database error).
func refusal(err error) bool {
	e, ok := apperr.As(err)
	if !ok {
		return false
	}
	switch e.Kind {
	case apperr.KindInvalid, apperr.KindForbidden, apperr.KindConflict, apperr.KindUnprocessable:
		return true
	}
	return false
}

// ImportResults is the results file: a line per row of the file, with
// the customer it created or why it did not.
func ImportResults(im Import, rows []ImportRowState) []byte {
	why := map[int][]string{}
	for _, p := range im.Problems {
		msg := p.Message
		if p.Column != "" {
			msg = p.Column + " " + msg
		}
		why[p.Row] = append(why[p.Row], p.Code+": "+msg)
	}
	type line struct {
		row                     int
		status, customer, error string
	}
	var lines []line
	seen := map[int]bool{}
	for _, r := range rows {
		seen[r.Row] = true
		l := line{row: r.Row, status: r.State, customer: r.CustomerID, error: r.Error}
		if r.State == RowInvalid {
			l.error = strings.Join(why[r.Row], "; ")
		}
		lines = append(lines, l)
	}
	for row, msgs := range why { // lines that could not be read
		if !seen[row] && row > 1 {
			lines = append(lines, line{row: row, status: RowInvalid, error: strings.Join(msgs, "; ")})
		}
	}
	slices.SortFunc(lines, func(a, b line) int { return a.row - b.row })
	var b strings.Builder
	w := csv.NewWriter(&b)
	_ = w.Write([]string{"row", "status", "customerId", "error"})
	for _, l := range lines {
		_ = w.Write([]string{strconv.Itoa(l.row), l.status, l.customer, l.error})
	}
	w.Flush()
	return []byte(b.String())
}
