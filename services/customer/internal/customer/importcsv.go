package customer

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/optional"
)

// The bulk import's file: CSV, one customer a line, under a header row
// naming the columns. The columns are the members of POST
// /api/v1/customers, flat: the personal fields by their JSON names, then
// up to MaxAddresses addresses as address1_streetName ... address5_notes.
// Documents are not part of a row (attach them to the customer after).
// Rows are numbered as a spreadsheet numbers its lines: the header is
// row 1, so the first customer is row 2.

// MaxImportRows is the most customer rows one file may hold.
const MaxImportRows = 5000

// MaxImportBytes bounds an import file: 5,000 full rows fit.
const MaxImportBytes = 8 << 20

// personalColumns are the personal members, in the template's order.
var personalColumns = []string{"firstName", "lastName", "phone", "email", "occupation", "bvn", "nin",
	"passportNumber", "loanId", "loanType", "relogReason"}

// addressColumns are an address's members; a column is address<N>_<member>.
var addressColumns = []string{"label", "streetNumber", "streetName", "landmark", "city", "lga", "state", "country", "notes"}

// requiredColumns must be in the header: no row could be valid without.
var requiredColumns = []string{"firstName", "lastName", "phone"}

// ImportColumns lists every column the import reads, in template order.
func ImportColumns() []string {
	cols := append([]string{}, personalColumns...)
	for n := 1; n <= MaxAddresses; n++ {
		for _, m := range addressColumns {
			cols = append(cols, addressColumn(n, m))
		}
	}
	return cols
}

func addressColumn(n int, member string) string { return fmt.Sprintf("address%d_%s", n, member) }

// ImportTemplate is the downloadable template: the header row and one
// example customer.
func ImportTemplate() []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	cols := ImportColumns()
	example := map[string]string{"firstName": "Adaeze", "lastName": "Okafor", "phone": "+2348031234567",
		"email": "adaeze@example.com", "loanId": "LN-0001", "loanType": "PERSONAL",
		"address1_streetNumber": "12", "address1_streetName": "Admiralty Way", "address1_city": "Lekki",
		"address1_lga": "Eti-Osa", "address1_state": "Lagos"}
	row := make([]string, len(cols))
	for i, c := range cols {
		row[i] = example[c]
	}
	_ = w.Write(cols)
	_ = w.Write(row)
	w.Flush()
	return b.Bytes()
}

// ImportRow is one customer line of a file: its row number and its
// non-empty cells by column.
type ImportRow struct {
	Row   int
	Cells map[string]string
}

// Problem is one thing wrong with a file, by row and column (column is
// empty for a whole row, row 1 is the header).
type Problem struct {
	Row         int      `json:"row"`
	Column      string   `json:"column,omitempty"`
	Code        string   `json:"code"`
	Message     string   `json:"message"`
	Suggestions []string `json:"suggestions,omitempty"`
	ExistingID  string   `json:"existingId,omitempty"`
}

// Codes of the import.
const (
	CodeImportFileInvalid  = "IMPORT_FILE_INVALID"
	CodeImportTooManyRows  = "IMPORT_TOO_MANY_ROWS"
	CodeImportRowsMismatch = "IMPORT_ROWS_MISMATCH"
)

// ParseImport reads a CSV file into its rows. A file that is not a CSV
// with a usable header, or holds more than MaxImportRows rows, is an
// error; a line that cannot be read is a problem of its row, and the
// rest are still read. Blank lines are skipped.
func ParseImport(r io.Reader) ([]ImportRow, []Problem, error) {
	br := &bomSkipper{r: r}
	cr := csv.NewReader(br)
	cr.FieldsPerRecord = -1 // counted here, to report the row
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, nil, fileInvalid("The file is empty; start from the template, whose first row names the columns")
	}
	if err != nil {
		return nil, nil, fileInvalid("The first row could not be read as CSV: " + csvReason(err))
	}
	cols, err := readHeader(header)
	if err != nil {
		return nil, nil, err
	}
	var rows []ImportRow
	var probs []Problem
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if !errors.As(err, &pe) {
				return nil, nil, fileInvalid("The file could not be read: " + err.Error())
			}
			probs = append(probs, Problem{Row: pe.StartLine, Code: CodeImportFileInvalid, Message: "is not valid CSV: " + csvReason(err)})
			continue
		}
		if blank(rec) {
			continue
		}
		line, _ := cr.FieldPos(0)
		if len(rows) == MaxImportRows {
			return nil, nil, apperr.New(apperr.KindInvalid, CodeImportTooManyRows,
				fmt.Sprintf("A file may hold at most %d customers; split it into several files", MaxImportRows))
		}
		if len(rec) != len(cols) {
			probs = append(probs, Problem{Row: line, Code: CodeImportFileInvalid,
				Message: fmt.Sprintf("has %d cells; the header has %d", len(rec), len(cols))})
			continue
		}
		row := ImportRow{Row: line, Cells: map[string]string{}}
		for i, v := range rec {
			if strings.TrimSpace(v) != "" {
				row.Cells[cols[i]] = v
			}
		}
		rows = append(rows, row)
	}
	if !br.sawData {
		return nil, nil, fileInvalid("The file is empty")
	}
	return rows, probs, nil
}

// readHeader maps the header's cells to columns: every one known, none
// twice, the required ones there. Names are matched without regard to
// case or surrounding spaces, as spreadsheets tend to change both.
func readHeader(header []string) ([]string, error) {
	known := map[string]string{}
	for _, c := range ImportColumns() {
		known[strings.ToLower(c)] = c
	}
	cols := make([]string, len(header))
	seen := map[string]bool{}
	var details []apperr.Detail
	for i, h := range header {
		c, ok := known[strings.ToLower(strings.TrimSpace(h))]
		switch {
		case !ok:
			details = append(details, apperr.Detail{Field: columnName(i, h), Message: "is not a column of the template"})
		case seen[c]:
			details = append(details, apperr.Detail{Field: c, Message: "appears twice in the header"})
		}
		seen[c], cols[i] = true, c
	}
	for _, c := range requiredColumns {
		if !seen[c] {
			details = append(details, apperr.Detail{Field: c, Message: "is missing from the header"})
		}
	}
	if len(details) > 0 {
		return nil, (&apperr.Error{Kind: apperr.KindInvalid, Code: CodeImportFileInvalid,
			Message: "The header row does not match the template; download it again and keep its first row"}).WithDetails(details...)
	}
	return cols, nil
}

// columnName names a header cell in a problem: itself when printable,
// else its position.
func columnName(i int, h string) string {
	h = strings.TrimSpace(h)
	if h == "" || !utf8.ValidString(h) || len(h) > 64 {
		return "column " + strconv.Itoa(i+1)
	}
	return h
}

func blank(rec []string) bool {
	for _, v := range rec {
		if strings.TrimSpace(v) != "" {
			return false
		}
	}
	return true
}

func fileInvalid(msg string) error {
	return apperr.New(apperr.KindInvalid, CodeImportFileInvalid, msg)
}

// csvReason is a parse error without the line, which the problem names.
func csvReason(err error) string {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// bomSkipper drops a UTF-8 byte order mark at the start (spreadsheets
// write one) and notes whether there was any data at all.
type bomSkipper struct {
	r       io.Reader
	started bool
	sawData bool
	pending []byte
}

func (b *bomSkipper) Read(p []byte) (int, error) {
	if !b.started {
		b.started = true
		head := make([]byte, 3)
		n, err := io.ReadFull(b.r, head)
		head = head[:n]
		if !bytes.Equal(head, []byte("\xef\xbb\xbf")) {
			b.pending = head
		}
		if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
			return 0, err
		}
	}
	if len(b.pending) > 0 {
		n := copy(p, b.pending)
		b.pending = b.pending[n:]
		b.sawData = true
		return n, nil
	}
	n, err := b.r.Read(p)
	if n > 0 {
		b.sawData = true
	}
	return n, err
}

// Input is the row as the create request it stands for. groups[i] is
// the address number (1-5) of Addresses[i]: an address is present when
// any of its cells is, so address2 alone is the customer's first.
func (r ImportRow) Input() (CreateInput, []int) {
	var in CreateInput
	cell := func(col string) optional.Field[string] {
		if v, ok := r.Cells[col]; ok {
			return optional.Of(v)
		}
		return optional.Field[string]{}
	}
	in.FirstName, in.LastName, in.Phone = cell("firstName"), cell("lastName"), cell("phone")
	in.Email, in.Occupation, in.BVN, in.NIN = cell("email"), cell("occupation"), cell("bvn"), cell("nin")
	in.PassportNumber, in.LoanID, in.LoanType = cell("passportNumber"), cell("loanId"), cell("loanType")
	in.RelogReason = cell("relogReason")
	var groups []int
	var addrs []AddressInput
	for n := 1; n <= MaxAddresses; n++ {
		f := func(m string) optional.Field[string] { return cell(addressColumn(n, m)) }
		a := AddressInput{Label: f("label"), StreetNumber: f("streetNumber"), StreetName: f("streetName"), Landmark: f("landmark"),
			City: f("city"), LGA: f("lga"), State: f("state"), Country: f("country"), Notes: f("notes")}
		if a == (AddressInput{}) {
			continue
		}
		addrs, groups = append(addrs, a), append(groups, n)
	}
	if len(addrs) > 0 {
		in.Addresses = optional.Of(addrs)
	}
	return in, groups
}

// columnOf maps a problem's field ("addresses[1].city") to the column it
// came from ("address3_city" when the second address present is the
// third group).
func columnOf(field string, groups []int) string {
	rest, ok := strings.CutPrefix(field, "addresses[")
	if !ok {
		if field == "addresses" {
			return "address1_streetName"
		}
		return field
	}
	idx, member, ok := strings.Cut(rest, "].")
	i, err := strconv.Atoi(idx)
	if !ok || err != nil || i < 0 || i >= len(groups) {
		return field
	}
	return addressColumn(groups[i], member)
}
