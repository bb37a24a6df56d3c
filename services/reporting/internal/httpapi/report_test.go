package httpapi_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
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
	apply(t, f.outcomes, outcome(t, who, id, report.Verified))
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
	apply(t, f.outcomes, outcome(t, who, id, report.Verified))
	gone := f.customer(t, who, events.TypeCustomerCreated)
	apply(t, f.outcomes, outcome(t, who, gone, report.Verified))
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
	apply(t, f.outcomes, first)
	v1 := f.report(t, who, id)
	apply(t, f.outcomes, first) // a redelivery
	if n := f.count(t, `SELECT count(*) FROM reports WHERE customer_id = $1`, id); n != 1 {
		t.Fatalf("%d reports after a redelivery", n)
	}
	apply(t, f.outcomes, outcome(t, who, id, report.Rejected)) // an added address was rejected
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
// different topics; an outcome that arrives first is retried, not lost.
func TestOutcomeBeforeProfileWaits(t *testing.T) {
	t.Parallel()
	f := setup(t)
	who := newTenant("live")
	id := "cus_" + strings.Repeat("ab", 16)
	e := outcome(t, who, id, report.Verified)
	if err := f.outcomes.Apply(context.Background(), e); err == nil {
		t.Fatal("an outcome without its customer's profile was accepted")
	}
	f.customerEvent(t, who, events.TypeCustomerCreated, id)
	apply(t, f.outcomes, e)
	if r := f.report(t, who, id); r.status != http.StatusOK {
		t.Fatalf("after the retry: %d %s", r.status, r.body)
	}
}

// TestConcurrentOutcomesGetDistinctVersions: outcomes of one customer
// rendered at the same time never share a version number.
func TestConcurrentOutcomesGetDistinctVersions(t *testing.T) {
	t.Parallel()
	f := setup(t)
	who := newTenant("live")
	id := f.customer(t, who, events.TypeCustomerCreated)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		e := outcome(t, who, id, report.Verified)
		wg.Go(func() { errs <- f.outcomes.Apply(context.Background(), e) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := f.count(t, `SELECT count(DISTINCT version) FROM reports WHERE customer_id = $1 AND version BETWEEN 1 AND 4`, id); n != 4 {
		t.Fatalf("%d distinct versions for 4 outcomes", n)
	}
}

func TestVerifyAcceptsAGenuineCodeAndRefusesAForgedOne(t *testing.T) {
	t.Parallel()
	f := setup(t)
	who := newTenant("live")
	id := f.customer(t, who, events.TypeCustomerCreated)
	apply(t, f.outcomes, outcome(t, who, id, report.Verified))
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

}
