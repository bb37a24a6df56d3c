package e2e

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kycfield/kyc/e2e/harness"
	"github.com/kycfield/kyc/pkg/eventually"
)

// importView is GET /api/v1/imports/{id}'s data.
type importView struct {
	ID           string  `json:"id"`
	Status       string  `json:"status"`
	TotalRows    int     `json:"totalRows"`
	ValidRows    int     `json:"validRows"`
	ProblemCount int     `json:"problemCount"`
	CreatedRows  int     `json:"createdRows"`
	FailedRows   int     `json:"failedRows"`
	Progress     float64 `json:"progress"`
}

type importProblem struct {
	Row         int      `json:"row"`
	Column      string   `json:"column"`
	Code        string   `json:"code"`
	Message     string   `json:"message"`
	Suggestions []string `json:"suggestions"`
	ExistingID  string   `json:"existingId"`
}

// importCSV is n customer rows under the template's personal and first
// address columns; bad replaces whole rows by their index. Phones are
// consecutive from a random start (+2349..., apart from phone()'s
// +23480...), so that no two rows of a file share one by chance.
func importCSV(tag string, n int, bad map[int]string) []byte {
	base := rand.IntN(900_000_000)
	var b strings.Builder
	b.WriteString("firstName,lastName,phone,email,loanId,address1_streetName,address1_city,address1_state\n")
	for i := 0; i < n; i++ {
		if row, ok := bad[i]; ok {
			b.WriteString(row + "\n")
			continue
		}
		fmt.Fprintf(&b, "Ngozi,Okafor,+2349%09d,,%s-%d,Allen Avenue,Ikeja,Lagos\n", base+i, tag, i)
	}
	return []byte(b.String())
}

func uploadImport(t *testing.T, key string, file []byte, header map[string]string) harness.Response {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("file", "customers.csv")
	_, _ = fw.Write(file)
	_ = mw.Close()
	h := map[string]string{"Content-Type": mw.FormDataContentType()}
	for k, v := range header {
		h[k] = v
	}
	return P.Do(t, harness.Request{Method: "POST", URL: P.GatewayURL + "/api/v1/imports", Key: key, Body: body.Bytes(), Header: h})
}

// TestBulkImportShowsEveryProblemThenCreatesEachRowOnce is issue 29's
// "done when": 1,000 rows with 7 bad ones show the 7 problems first (by
// row and column), then 993 customers are created exactly once though
// the upload and the start are retried and the customer service is
// restarted mid-job; each created row is taken from the daily quota.
func TestBulkImportShowsEveryProblemThenCreatesEachRowOnce(t *testing.T) {
	org := P.NewOrg(t, "growth")
	_, key := P.NewKey(t, org, "live")
	var calls atomic.Int64 // every request of this organization, for the quota
	api := func(method, path string, body any) harness.Response {
		calls.Add(1)
		return P.API(t, method, path, key, body)
	}
	held := api("POST", "/api/v1/customers", newCustomer(map[string]any{"loanId": "HELD-1"}))
	if held.Status != http.StatusCreated {
		t.Fatalf("existing customer: %d %s", held.Status, held.Body)
	}
	var heldView customerView
	held.Decode(t, &heldView)
	dupPhone := phone()
	bad := map[int]string{
		10:  "N,Okafor," + phone() + ",,,Allen Avenue,Ikeja,Lagos",                 // row 12: firstName
		100: "Ngozi,Okafor,08031234567,,,Allen Avenue,Ikeja,Lagos",                 // row 102: phone
		200: "Ngozi,Okafor," + phone() + ",not-an-email,,Allen Avenue,Ikeja,Lagos", // row 202: email
		300: "Ngozi,Okafor," + phone() + ",,,Allen Avenue,Ikeja,Lagoss",            // row 302: state
		400: "Ngozi,Okafor," + dupPhone + ",,,Allen Avenue,Ikeja,Lagos",            // row 402: fine, first holder
		401: "Ngozi,Okafor," + dupPhone + ",,,Allen Avenue,Ikeja,Lagos",            // row 403: phone of row 402
		500: "Ngozi,Okafor," + phone() + ",,HELD-1,Allen Avenue,Ikeja,Lagos",       // row 502: loanId of an existing customer
		600: "Ngozi,Okafor," + phone() + ",,,Allen Avenue,,Lagos",                  // row 602: city
	}
	file := importCSV(strings.ToLower(org), 1000, bad)

	// Upload: the check, with a key, retried; then the same bytes again.
	idem := map[string]string{"Idempotency-Key": "upload-" + org}
	calls.Add(1)
	up := uploadImport(t, key, file, idem)
	if up.Status != http.StatusCreated {
		t.Fatalf("upload: %d %s", up.Status, up.Body)
	}
	var im importView
	up.Decode(t, &im)
	calls.Add(1)
	if again := uploadImport(t, key, file, idem); again.Header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(again.Env.Data, up.Env.Data) {
		t.Fatalf("retried upload: %d %s", again.Status, again.Body)
	}
	calls.Add(1)
	same := uploadImport(t, key, file, nil)
	var sameView importView
	same.Decode(t, &sameView)
	if same.Status != http.StatusOK || sameView.ID != im.ID {
		t.Fatalf("same file again: %d %s", same.Status, same.Body)
	}
	if im.TotalRows != 1000 || im.ValidRows != 993 || im.ProblemCount != 7 || im.Status != "VALIDATED" {
		t.Fatalf("checked: %+v", im)
	}

	// The 7 problems, by row and column, before anything is created.
	var errs struct{ Problems []importProblem }
	api("GET", "/api/v1/imports/"+im.ID+"/errors", nil).Decode(t, &errs)
	var got []string
	for _, p := range errs.Problems {
		got = append(got, fmt.Sprintf("%d %s %s", p.Row, p.Column, p.Code))
	}
	want := []string{"12 firstName VALIDATION_ERROR", "102 phone VALIDATION_ERROR", "202 email VALIDATION_ERROR",
		"302 address1_state VALIDATION_ERROR", "403 phone DUPLICATE_CUSTOMER", "502 loanId DUPLICATE_CUSTOMER", "602 address1_city VALIDATION_ERROR"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("problems:\n got %q\nwant %q", got, want)
	}
	if errs.Problems[3].Suggestions[0] != "Lagos" || errs.Problems[5].ExistingID != heldView.ID {
		t.Fatalf("suggestions or existing id: %+v", errs.Problems)
	}
	var list struct{ Pagination struct{ Total int } }
	api("GET", "/api/v1/customers?limit=1", nil).Decode(t, &list)
	if list.Pagination.Total != 1 {
		t.Fatalf("customers before the start: %d", list.Pagination.Total)
	}

	// Start, retried with its key, and once more without one.
	startKey := map[string]string{"Idempotency-Key": "start-" + org}
	start := func(h map[string]string) harness.Response {
		calls.Add(1)
		return P.Do(t, harness.Request{Method: "POST", URL: P.GatewayURL + "/api/v1/imports/" + im.ID + "/start", Key: key,
			Body: map[string]any{"rows": 993}, Header: h})
	}
	if r := start(startKey); r.Status != http.StatusAccepted {
		t.Fatalf("start: %d %s", r.Status, r.Body)
	}
	if r := start(startKey); r.Status != http.StatusAccepted || r.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("retried start: %d %s", r.Status, r.Body)
	}
	if r := start(nil); r.Status != http.StatusOK {
		t.Fatalf("start again: %d %s", r.Status, r.Body)
	}

	// The customer service restarts mid-job.
	under := eventually.Value(t, 60*time.Second, "the job under way", func() (importView, bool) {
		var v importView
		api("GET", "/api/v1/imports/"+im.ID, nil).Decode(t, &v)
		return v, v.CreatedRows >= 50
	})
	if under.Status != "RUNNING" {
		t.Fatalf("the job ended before the restart: %+v", under)
	}
	if err := P.Restart(context.Background(), "customer", nil); err != nil {
		t.Fatal(err)
	}
	final := eventually.Value(t, 120*time.Second, "the import completed", func() (importView, bool) {
		r := api("GET", "/api/v1/imports/"+im.ID, nil)
		var v importView
		if r.Status == http.StatusOK {
			r.Decode(t, &v)
		}
		return v, v.Status == "COMPLETED"
	})
	if final.CreatedRows != 993 || final.FailedRows != 0 || final.Progress != 1 {
		t.Fatalf("completed: %+v", final)
	}
	api("GET", "/api/v1/customers?limit=1", nil).Decode(t, &list)
	if list.Pagination.Total != 994 {
		t.Fatalf("customers after the import: %d, want 994", list.Pagination.Total)
	}

	// The results: a line per row, each created row its own customer.
	calls.Add(1)
	res := P.API(t, "GET", "/api/v1/imports/"+im.ID+"/results.csv", key, nil)
	lines, err := csv.NewReader(bytes.NewReader(res.Body)).ReadAll()
	if err != nil || res.Header.Get("Content-Type") != "text/csv; charset=utf-8" || len(lines) != 1001 {
		t.Fatalf("results: %v %s %d lines", err, res.Header.Get("Content-Type"), len(lines))
	}
	ids := map[string]bool{}
	for _, l := range lines[1:] {
		if l[1] == "CREATED" {
			ids[l[2]] = true
		}
	}
	if len(ids) != 993 || lines[11][1] != "INVALID" || !strings.Contains(lines[11][3], "firstName") {
		t.Fatalf("results: %d distinct customers; row 12 %q", len(ids), lines[11])
	}

	// The quota: every request, and one per created customer.
	calls.Add(1)
	r := P.API(t, "GET", "/api/v1/imports/"+im.ID, key, nil)
	remaining, _ := strconv.Atoi(r.Header.Get("RateLimit-Remaining"))
	if used := 10000 - remaining; used != int(calls.Load())+993 {
		t.Fatalf("quota used %d, want %d requests + 993 rows", used, calls.Load())
	}
}

// TestBulkImportLargerThanTheQuotaLeftIsRefused: a start that would pass
// the daily quota is 429 before anything is created, and charges nothing.
func TestBulkImportLargerThanTheQuotaLeftIsRefused(t *testing.T) {
	t.Parallel()
	org := P.NewOrg(t, "developer") // 100 requests a day
	_, key := P.NewKey(t, org, "test")
	up := uploadImport(t, key, importCSV(strings.ToLower(org), 120, nil), nil)
	var im importView
	up.Decode(t, &im)
	if up.Status != http.StatusCreated || im.ValidRows != 120 {
		t.Fatalf("upload: %d %s", up.Status, up.Body)
	}
	r := P.API(t, "POST", "/api/v1/imports/"+im.ID+"/start", key, map[string]any{"rows": 120})
	if r.Status != http.StatusTooManyRequests || r.Code() != "QUOTA_EXCEEDED" || !strings.Contains(r.Env.Error.Message, "120 customers") {
		t.Fatalf("start over the quota: %d %s", r.Status, r.Body)
	}
	r = P.API(t, "POST", "/api/v1/imports/"+im.ID+"/start", key, map[string]any{"rows": 7})
	if r.Status != http.StatusUnprocessableEntity || r.Code() != "IMPORT_ROWS_MISMATCH" {
		t.Fatalf("start with a wrong count: %d %s", r.Status, r.Body)
	}
	var v importView
	r = P.API(t, "GET", "/api/v1/imports/"+im.ID, key, nil)
	r.Decode(t, &v)
	// 4 requests so far: the 7 of the mismatch were given back.
	if v.Status != "VALIDATED" || v.CreatedRows != 0 || r.Header.Get("RateLimit-Remaining") != "96" {
		t.Fatalf("after the refusals: %+v remaining %s", v, r.Header.Get("RateLimit-Remaining"))
	}
	// A file that is not the template's is refused whole, naming columns.
	bad := uploadImport(t, key, []byte("name,phone\nAda,1\n"), nil)
	if bad.Status != http.StatusBadRequest || bad.Code() != "IMPORT_FILE_INVALID" || !strings.Contains(string(bad.Body), `"field":"name"`) {
		t.Fatalf("bad header: %d %s", bad.Status, bad.Body)
	}
	// Another organization cannot see it.
	other := P.NewOrg(t, "developer")
	_, otherKey := P.NewKey(t, other, "test")
	if r := P.API(t, "GET", "/api/v1/imports/"+im.ID, otherKey, nil); r.Status != http.StatusNotFound {
		t.Fatalf("other org: %d", r.Status)
	}
}

// TestBulkImportBenchmark is BENCHMARKS.md §16: a file of 5,000 live
// customers end to end through the gateway, the check (upload) and the
// creation rate. It runs only when KYC_BENCH_IMPORT is set.
func TestBulkImportBenchmark(t *testing.T) {
	if os.Getenv("KYC_BENCH_IMPORT") == "" {
		t.Skip("set KYC_BENCH_IMPORT=1 to run the bulk import benchmark")
	}
	org := P.NewOrg(t, "growth")
	_, key := P.NewKey(t, org, "live")
	file := importCSV(strings.ToLower(org), customerMaxImportRows, nil)
	began := time.Now()
	up := uploadImport(t, key, file, nil)
	checked := time.Since(began)
	var im importView
	up.Decode(t, &im)
	if up.Status != http.StatusCreated || im.ValidRows != customerMaxImportRows {
		t.Fatalf("upload: %d %s", up.Status, up.Body)
	}
	began = time.Now()
	if r := P.API(t, "POST", "/api/v1/imports/"+im.ID+"/start", key, map[string]any{"rows": im.ValidRows}); r.Status != http.StatusAccepted {
		t.Fatalf("start: %d %s", r.Status, r.Body)
	}
	final := eventually.Value(t, 10*time.Minute, "the import completed", func() (importView, bool) {
		var v importView
		P.API(t, "GET", "/api/v1/imports/"+im.ID, key, nil).Decode(t, &v)
		return v, v.Status == "COMPLETED"
	})
	created := time.Since(began)
	if final.CreatedRows != customerMaxImportRows {
		t.Fatalf("completed: %+v", final)
	}
	t.Logf("bulk import of %d rows (%d KiB): check (upload to answer) %s; creation %s, %.0f rows/s",
		customerMaxImportRows, len(file)>>10, checked.Round(time.Millisecond), created.Round(time.Millisecond),
		float64(customerMaxImportRows)/created.Seconds())
}

// customerMaxImportRows is the customer service's MaxImportRows.
const customerMaxImportRows = 5000
