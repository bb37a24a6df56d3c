package httpapi_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/kycfield/kyc/pkg/pdftest"
	"github.com/kycfield/kyc/services/reporting/internal/events"
	"github.com/kycfield/kyc/services/reporting/internal/report"
)

func TestReportIsNotReadyUntilTheOutcomeThenServedWithItsETag(t *testing.T) {
	t.Parallel()
	f := setup(t)
	who := newTenant("live")
	id := f.customer(t, who, events.TypeCustomerCreated)
	if r := f.report(t, who, id); r.status != http.StatusConflict || r.code() != report.CodeNotReady {
		t.Fatalf("before the outcome: %d %s", r.status, r.body)
	}
	f.outcome(t, outcome(t, who, id, report.Verified))
	r := f.report(t, who, id)
	if r.status != http.StatusOK || r.header.Get("Content-Type") != "application/pdf" ||
		r.header.Get("Content-Disposition") != `attachment; filename=kyc-report-`+id+`.pdf` {
		t.Fatalf("download: %d %v %s", r.status, r.header, r.body)
	}
	sum := sha256.Sum256(r.body)
	if etag := r.header.Get("ETag"); etag != `"`+hex.EncodeToString(sum[:])+`"` {
		t.Fatalf("ETag %s is not the PDF's SHA-256", etag)
	}
	text := pdftest.Text(t, r.body)
	for _, w := range []string{"Chụkwụemeka Ọkọrọ", "***5678", "A01234567", "12 Adeola Odeku Street", "VERIFIED", id} {
		if !strings.Contains(text, w) {
			t.Errorf("report text lacks %q", w)
		}
	}
	if again := f.report(t, who, id, "If-None-Match", r.header.Get("ETag")); again.status != http.StatusNotModified {
		t.Fatalf("If-None-Match: %d", again.status)
	}
}

func TestNobodyElseSeesTheReport(t *testing.T) {
	t.Parallel()
	f := setup(t)
	who := newTenant("live")
	id := f.customer(t, who, events.TypeCustomerCreated)
	f.outcome(t, outcome(t, who, id, report.Verified))
	gone := f.customer(t, who, events.TypeCustomerCreated)
	f.outcome(t, outcome(t, who, gone, report.Verified))
	f.customerEvent(t, who, events.TypeCustomerDeleted, gone)
	cases := []struct {
		name     string
		who      tenant
		customer string
	}{
		{"another organization", tenant{newTenant("live").org, "live"}, id},
		{"the other environment", tenant{who.org, "test"}, id},
		{"an unknown customer", who, "cus_0000000000000000000000000000000f"},
		{"a malformed id", who, "nonsense"},
		{"a deleted customer", who, gone},
	}
	for _, tc := range cases {
		if r := f.report(t, tc.who, tc.customer); r.status != http.StatusNotFound || r.code() != "NOT_FOUND" {
			t.Errorf("%s: %d %s", tc.name, r.status, r.body)
		}
	}
}

func TestRedeliveredOutcomeRendersOnceAndALaterOneIsANewVersion(t *testing.T) {
	t.Parallel()
	f := setup(t)
	who := newTenant("test")
	id := f.customer(t, who, events.TypeCustomerCreated)
	first := outcome(t, who, id, report.Verified)
	f.outcome(t, first)
	v1 := f.report(t, who, id)
	f.outcome(t, first) // a redelivery
	if n := f.count(t, `SELECT count(*) FROM reports WHERE customer_id = $1`, id); n != 1 {
		t.Fatalf("%d reports after a redelivery", n)
	}
	f.outcome(t, outcome(t, who, id, report.Rejected)) // an added address was rejected
	v2 := f.report(t, who, id)
	if v1.header.Get("X-Report-Version") != "1" || v2.header.Get("X-Report-Version") != "2" || v1.header.Get("ETag") == v2.header.Get("ETag") {
		t.Fatalf("versions: %v / %v", v1.header, v2.header)
	}
	if text := pdftest.Text(t, v2.body); !strings.Contains(text, "REJECTED") || !strings.Contains(text, "SANDBOX") {
		t.Fatalf("the newest version is not served:\n%s", text)
	}
	// Each version was announced, newest last, with the download URL.
	rows, err := f.pool.Query(context.Background(), `SELECT payload FROM outbox ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	var got []events.ReportGenerated
	for rows.Next() {
		var raw []byte
		if err := rows.Scan(&raw); err != nil {
			t.Fatal(err)
		}
		var e struct {
			Type string
			Data events.ReportGenerated
		}
		_ = json.Unmarshal(raw, &e)
		got = append(got, e.Data)
	}
	if len(got) != 2 || got[1].Version != 2 || got[1].Status != report.Rejected ||
		got[1].ReportURL != "https://api.example.com/api/v1/customers/"+id+"/report" {
		t.Fatalf("report.generated events: %+v", got)
	}
}

// TestOutcomeBeforeProfileWaits: the outcome and the profile travel on
// different topics; an outcome that arrives first is queued, its render
// retried until the profile is there, not lost.
func TestOutcomeBeforeProfileWaits(t *testing.T) {
	t.Parallel()
	f := setup(t)
	who := newTenant("live")
	id := "cus_" + strings.Repeat("ab", 16)
	apply(t, f.outcomes, outcome(t, who, id, report.Verified))
	if took, _, err := f.svc.RenderNext(context.Background()); took == "" || !errors.Is(err, report.ErrProfileMissing) {
		t.Fatalf("render without the profile: %q %v", took, err)
	}
	if r := f.report(t, who, id); r.status != http.StatusNotFound {
		t.Fatalf("before the profile: %d %s", r.status, r.body)
	}
	f.customerEvent(t, who, events.TypeCustomerCreated, id)
	f.due(t)
	f.rendered(t)
	if r := f.report(t, who, id); r.status != http.StatusOK {
		t.Fatalf("after the retry: %d %s", r.status, r.body)
	}
}

// TestConcurrentRendersGetDistinctVersionsInOrder: renders of one
// customer taken by several workers at once never share a version
// number, and number in the order their outcomes came.
func TestConcurrentRendersGetDistinctVersionsInOrder(t *testing.T) {
	t.Parallel()
	f := setup(t)
	who := newTenant("live")
	id := f.customer(t, who, events.TypeCustomerCreated)
	var order []string
	for i := range 4 {
		status := report.Verified
		if i%2 == 1 {
			status = report.Rejected
		}
		e := outcome(t, who, id, status)
		apply(t, f.outcomes, e)
		order = append(order, e.ID)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Go(func() {
			_, _, err := f.svc.RenderNext(context.Background())
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	f.rendered(t)
	for v, eventID := range order {
		if n := f.count(t, `SELECT count(*) FROM reports WHERE customer_id = $1 AND version = $2 AND event_id = $3`, id, v+1, eventID); n != 1 {
			t.Errorf("version %d is not the report of outcome %d", v+1, v+1)
		}
	}
}

// TestALateDocumentIsANewVersionListingIt: a document added after the
// customer's verification ended renders a new version that lists it,
// once however often its event comes; one added before any outcome
// renders nothing by itself but is listed by the first report.
func TestALateDocumentIsANewVersionListingIt(t *testing.T) {
	t.Parallel()
	f := setup(t)
	who := newTenant("live")
	id := f.customer(t, who, events.TypeCustomerCreated)
	early := documentAdded(t, who, id, "ID_CARD", "passport-scan.png")
	apply(t, f.documents, early)
	f.rendered(t)
	if n := f.count(t, `SELECT count(*) FROM reports WHERE customer_id = $1`, id); n != 0 {
		t.Fatalf("%d reports before any outcome", n)
	}
	f.outcome(t, outcome(t, who, id, report.Verified))
	v1 := f.report(t, who, id)
	if text := pdftest.Text(t, v1.body); !strings.Contains(text, "Documents (1)") || !strings.Contains(text, "passport-scan.png") {
		t.Fatalf("version 1 does not list the early document:\n%s", text)
	}
	late := documentAdded(t, who, id, "UTILITY_BILL", "nepa-bill-october.pdf")
	apply(t, f.documents, late)
	apply(t, f.documents, late) // a redelivery
	f.rendered(t)
	v2 := f.report(t, who, id)
	text := pdftest.Text(t, v2.body)
	if v2.header.Get("X-Report-Version") != "2" || !strings.Contains(text, "Documents (2)") || !strings.Contains(text, "nepa-bill-october.pdf") {
		t.Fatalf("version %s does not list the late document:\n%s", v2.header.Get("X-Report-Version"), text)
	}
	if n := f.count(t, `SELECT count(*) FROM reports WHERE customer_id = $1`, id); n != 2 {
		t.Fatalf("%d versions, want 2", n)
	}
}

func TestVerifyAcceptsAGenuineCodeAndRefusesAForgedOne(t *testing.T) {
	t.Parallel()
	f := setup(t)
	who := newTenant("live")
	id := f.customer(t, who, events.TypeCustomerCreated)
	f.outcome(t, outcome(t, who, id, report.Verified))
	pdf := f.report(t, who, id).body
	var code string
	if err := f.pool.QueryRow(context.Background(), `SELECT code FROM reports WHERE customer_id = $1`, id).Scan(&code); err != nil {
		t.Fatal(err)
	}
	// The code is printed on the report itself.
	if !strings.Contains(pdftest.Text(t, pdf), code) {
		t.Fatal("the verification code is not on the report")
	}
	nobody := tenant{} // the endpoint is public: no organization
	r := f.get(t, nobody, "/api/v1/reports/verify/"+code)
	sum := sha256.Sum256(pdf)
	var v struct {
		Genuine    bool   `json:"genuine"`
		CustomerID string `json:"customerId"`
		Status     string `json:"status"`
		SHA256     string `json:"sha256"`
		Generated  string `json:"generatedAt"`
	}
	b, _ := json.Marshal(r.env.Data)
	_ = json.Unmarshal(b, &v)
	if r.status != http.StatusOK || !v.Genuine || v.CustomerID != id || v.Status != "VERIFIED" || v.SHA256 != hex.EncodeToString(sum[:]) || v.Generated == "" {
		t.Fatalf("genuine code: %d %s", r.status, r.body)
	}
	for _, bad := range []string{report.NewCode(), strings.ToLower(code), code[:23], code + "A", "not-a-code", "%00"} {
		if r := f.get(t, nobody, "/api/v1/reports/verify/"+bad); r.status != http.StatusNotFound || r.code() != "NOT_FOUND" {
			t.Errorf("code %q: %d %s", bad, r.status, r.body)
		}
	}
	if strings.Contains(string(r.body), "Ọkọrọ") || strings.Contains(string(r.body), "5678") {
		t.Fatalf("the verify answer carries personal data: %s", r.body)
	}
	if !strings.Contains(string(r.body), `"reason":null`) {
		t.Fatalf("a genuine report has a reason: %s", r.body)
	}
	// The lender deletes the customer: the code still names the report,
	// which is no longer genuine.
	f.customerEvent(t, who, events.TypeCustomerDeleted, id)
	r = f.get(t, nobody, "/api/v1/reports/verify/"+code)
	if r.status != http.StatusOK || !strings.Contains(string(r.body), `"genuine":false`) || !strings.Contains(string(r.body), `"reason":"WITHDRAWN"`) ||
		!strings.Contains(string(r.body), id) {
		t.Fatalf("the code of a deleted customer's report: %d %s", r.status, r.body)
	}
}

// customersSay stands in for the customer service's answer.
type customersSay bool

func (c customersSay) Exists(context.Context, string, string, string) (bool, error) {
	return bool(c), nil
}

// TestTheCustomerServiceSaysWhetherTheCustomerIsThere: with the customer
// service asked, a customer it has whose profile has not reached this
// context yet is a report not ready (409), and one it does not have is
// 404 even while this context's copy still holds it (a delete a moment
// ago).
func TestTheCustomerServiceSaysWhetherTheCustomerIsThere(t *testing.T) {
	t.Parallel()
	f := setup(t)
	who := newTenant("live")
	f.svc.AskCustomers(customersSay(true))
	if r := f.report(t, who, "cus_"+strings.Repeat("cd", 16)); r.status != http.StatusConflict || r.code() != report.CodeNotReady {
		t.Fatalf("a customer not yet known here: %d %s", r.status, r.body)
	}
	id := f.customer(t, who, events.TypeCustomerCreated)
	f.outcome(t, outcome(t, who, id, report.Verified))
	if r := f.report(t, who, id); r.status != http.StatusOK {
		t.Fatalf("a reported customer: %d %s", r.status, r.body)
	}
	f.svc.AskCustomers(customersSay(false))
	if r := f.report(t, who, id); r.status != http.StatusNotFound || r.code() != "NOT_FOUND" {
		t.Fatalf("a customer the customer service no longer has: %d %s", r.status, r.body)
	}
}
