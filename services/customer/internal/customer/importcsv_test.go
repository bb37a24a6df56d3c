package customer

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kycfield/kyc/pkg/apperr"
)

const header = "firstName,lastName,phone,email,loanId,address1_streetName,address1_city,address1_state,address2_streetName,address2_city,address2_state\n"

func TestParseImportFiles(t *testing.T) {
	tests := []struct {
		name     string
		file     string
		rows     int
		problems []string // "row column"
		code     string   // of the file's refusal
	}{
		{name: "template", file: string(ImportTemplate()), rows: 1},
		{name: "byte order mark and CRLF", file: "\xef\xbb\xbf" + strings.ReplaceAll(header, "\n", "\r\n") + "Ada,Obi,+2348031234567,,,,,,,,\r\n", rows: 1},
		{name: "header case and spaces", file: " FirstName , LASTNAME,phone\nAda,Obi,+2348031234567\n", rows: 1},
		{name: "blank lines skipped", file: "firstName,lastName,phone\n\n,,\nAda,Obi,+2348031234567\n", rows: 1},
		{name: "row numbers are lines", file: "firstName,lastName,phone\nAda,Obi,1\nAda,Obi\n", rows: 1, problems: []string{"3 "}},
		{name: "bad quote is a row problem", file: "firstName,lastName,phone\nA\"da,Obi,1\nBo,Obi,2\n", rows: 1, problems: []string{"2 "}},
		{name: "empty", file: "", code: CodeImportFileInvalid},
		{name: "only a byte order mark", file: "\xef\xbb\xbf", code: CodeImportFileInvalid},
		{name: "unknown column", file: "firstName,lastName,phone,nickname\n", code: CodeImportFileInvalid},
		{name: "column twice", file: "firstName,lastName,phone,phone\n", code: CodeImportFileInvalid},
		{name: "required column missing", file: "firstName,lastName\n", code: CodeImportFileInvalid},
		{name: "too many rows", file: "firstName,lastName,phone\n" + strings.Repeat("Ada,Obi,1\n", MaxImportRows+1), code: CodeImportTooManyRows},
		{name: "exactly the most rows", file: "firstName,lastName,phone\n" + strings.Repeat("Ada,Obi,1\n", MaxImportRows), rows: MaxImportRows},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows, probs, err := ParseImport(strings.NewReader(tt.file))
			if tt.code != "" {
				if !apperr.IsCode(err, tt.code) {
					t.Fatalf("err = %v, want %s", err, tt.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != tt.rows {
				t.Errorf("rows = %d, want %d", len(rows), tt.rows)
			}
			var got []string
			for _, p := range probs {
				got = append(got, fmt.Sprintf("%d %s", p.Row, p.Column))
			}
			if strings.Join(got, "|") != strings.Join(tt.problems, "|") {
				t.Errorf("problems = %q, want %q", got, tt.problems)
			}
		})
	}
}

// memImports is an ImportStore that keeps the last job and knows some
// existing customers.
type memImports struct {
	ImportStore
	saved    Import
	rows     []ImportRowState
	existing map[string]map[string]string
}

func (m *memImports) SaveImport(_ context.Context, im Import, rows []ImportRowState, _ Audit) (Import, bool, error) {
	m.saved, m.rows = im, rows
	return im, false, nil
}

func (m *memImports) ExistingIdentities(context.Context, string, string, map[string][]string) (map[string]map[string]string, error) {
	return m.existing, nil
}

func TestValidateImportReportsEveryProblemByRowAndColumn(t *testing.T) {
	file := header +
		"Ada,Obi,+2348031234567,ada@example.com,L1,1 Broad St,Ikeja,Lagos,,,\n" + // row 2: fine
		"B,Obi,+2348031234568,,,,,,,,\n" + // row 3: name too short
		"Cy,Obi,0803,,,,,,,,\n" + // row 4: phone
		"Di,Obi,+2348031234569,,,2 Broad St,Ikeja,Lagoss,,,\n" + // row 5: state, with suggestions
		"Ed,Obi,+2348031234570,,,,,,3 Broad St,Ikeja,\n" + // row 6: the second group's state
		"Fa,Obi,+2348031234567,,,,,,,,\n" + // row 7: phone of row 2
		"Gu,Obi,+2348031234571,,L9,,,,,,\n" + // row 8: loanId of an existing customer
		"Ha,Obi,+2348031234572,,,,,,,,\n" // row 9: fine
	m := &memImports{existing: map[string]map[string]string{"loanId": {LoanKey("L9"): "cus_existing"}}}
	svc := NewService(nil, func() time.Time { return time.Date(2026, 11, 26, 8, 0, 0, 0, time.UTC) }).WithImports(m)
	im, _, err := svc.ValidateImport(context.Background(), Caller{OrgID: "org_1", Env: EnvTest}, "a.csv", strings.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"3 firstName VALIDATION_ERROR", "4 phone VALIDATION_ERROR", "5 address1_state VALIDATION_ERROR",
		"6 address2_state VALIDATION_ERROR", "7 phone DUPLICATE_CUSTOMER", "8 loanId DUPLICATE_CUSTOMER"}
	var got []string
	for _, p := range im.Problems {
		got = append(got, fmt.Sprintf("%d %s %s", p.Row, p.Column, p.Code))
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("problems:\n got %q\nwant %q", got, want)
	}
	if im.TotalRows != 8 || im.ValidRows != 2 {
		t.Errorf("rows %d valid %d, want 8 and 2", im.TotalRows, im.ValidRows)
	}
	if len(im.Problems[2].Suggestions) == 0 || im.Problems[2].Suggestions[0] != "Lagos" {
		t.Errorf("suggestions for Lagoss = %v", im.Problems[2].Suggestions)
	}
	if im.Problems[5].ExistingID != "cus_existing" {
		t.Errorf("existing id = %q", im.Problems[5].ExistingID)
	}
	if m.rows[0].State != RowPending || m.rows[1].State != RowInvalid {
		t.Errorf("states %s %s", m.rows[0].State, m.rows[1].State)
	}
}

func TestImportTemplateHeaderIsTheColumns(t *testing.T) {
	first, _, _ := strings.Cut(string(ImportTemplate()), "\n")
	if first != strings.Join(ImportColumns(), ",") || len(ImportColumns()) != 11+9*MaxAddresses {
		t.Fatalf("template header %q", first)
	}
}

func TestColumnOf(t *testing.T) {
	for _, tt := range []struct {
		field  string
		groups []int
		want   string
	}{
		{"phone", nil, "phone"},
		{"addresses[0].city", []int{1}, "address1_city"},
		{"addresses[1].state", []int{2, 4}, "address4_state"},
		{"addresses", nil, "address1_streetName"},
		{"addresses[9].city", []int{1}, "addresses[9].city"},
	} {
		if got := columnOf(tt.field, tt.groups); got != tt.want {
			t.Errorf("columnOf(%q) = %q, want %q", tt.field, got, tt.want)
		}
	}
}

// FuzzParseImport: any bytes are rows, problems or a refusal with a
// code, never a panic; every row has a number past the header and
// cells under known columns only.
func FuzzParseImport(f *testing.F) {
	f.Add([]byte(ImportTemplate()))
	f.Add([]byte(header + "a,b,c,d,e,f,g,h,i,j,k\n\"x\ny\",1,2,3,4,5,6,7,8,9,0\n"))
	f.Add([]byte("\xef\xbb\xbffirstName,lastName,phone\n\"a\"\"b\",c,\"d"))
	known := map[string]bool{}
	for _, c := range ImportColumns() {
		known[c] = true
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		rows, probs, err := ParseImport(strings.NewReader(string(b)))
		if err != nil {
			if _, ok := apperr.As(err); !ok && !errors.Is(err, errors.ErrUnsupported) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if len(rows) > MaxImportRows {
			t.Fatalf("%d rows", len(rows))
		}
		for _, r := range rows {
			if r.Row < 2 {
				t.Fatalf("row %d", r.Row)
			}
			for c := range r.Cells {
				if !known[c] {
					t.Fatalf("unknown column %q", c)
				}
			}
			r.Input()
		}
		for _, p := range probs {
			if p.Row < 1 || p.Code == "" {
				t.Fatalf("problem %+v", p)
			}
		}
	})
}
