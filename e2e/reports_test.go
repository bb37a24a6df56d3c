package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kycfield/kyc/e2e/harness"
	"github.com/kycfield/kyc/pkg/eventually"
	"github.com/kycfield/kyc/pkg/pdftest"
)

// waitReport polls the report download until it stops answering
// REPORT_NOT_READY (rendering follows the outcome by moments).
// reportWait bounds how long a test waits for a report: every sandbox
// customer the suite's parallel tests verify is rendered by one reporting
// consumer, one event at a time, under the race detector.
const reportWait = 90 * time.Second

func waitReport(t *testing.T, key, id string) harness.Response {
	t.Helper()
	var r harness.Response
	eventually.Value(t, reportWait, "the report", func() (string, bool) {
		r = P.API(t, "GET", "/api/v1/customers/"+id+"/report", key, nil)
		return fmt.Sprintf("%d %.300s", r.Status, r.Body), r.Status != http.StatusConflict
	})
	return r
}

// waitReportURL polls a read until its reportUrl names the customer's
// report download (report.generated reaches the other contexts in moments).
func waitReportURL(t *testing.T, key, path, id string) {
	t.Helper()
	eventually.Value(t, reportWait, path+" reportUrl", func() (string, bool) {
		r := P.API(t, "GET", path, key, nil)
		var got struct {
			ReportURL *string `json:"reportUrl"`
		}
		r.Decode(t, &got)
		return string(r.Body), got.ReportURL != nil && strings.HasSuffix(*got.ReportURL, "/api/v1/customers/"+id+"/report")
	})
}

var codeOnReport = regexp.MustCompile(`Verification code\s+([A-Z2-7]{24})`)

func verify(t *testing.T, code string) harness.Response {
	t.Helper()
	return P.Do(t, harness.Request{Method: "GET", URL: P.GatewayURL + "/api/v1/reports/verify/" + code})
}

func TestReportOfAVerifiedSandboxCustomer(t *testing.T) {
	t.Parallel()
	org := P.NewOrg(t, "growth")
	_, key := P.NewKey(t, org, "test")
	c := create(t, key, newCustomer(map[string]any{"firstName": "Adébísí", "lastName": "Ọláoyè", "email": "adebisi" + phone()[6:] + "@example.com",
		"occupation": "Textile trader", "bvn": "22212345678", "nin": "98765432109", "passportNumber": "A07654321",
		"loanId": "LN-" + phone()[5:], "loanType": "BUSINESS",
		"addresses": []map[string]any{
			{"streetNumber": "12", "streetName": "Adeola Odeku Street", "city": "Victoria Island", "state": "Lagos", "lga": "Eti-Osa", "landmark": "Near the bank"},
			{"streetName": "Aminu Kano Crescent", "city": "Wuse II", "state": "FCT"},
		},
		"documents": []map[string]any{{"documentType": "ID_CARD", "fileName": "id.jpg", "fileUrl": "https://files.example.com/id.jpg", "fileType": "image/jpeg", "fileSize": 1024}},
	}))
	s := waitOverall(t, key, c.ID, "VERIFIED")
	r := waitReport(t, key, c.ID)
	if r.Status != http.StatusOK || r.Header.Get("Content-Type") != "application/pdf" ||
		r.Header.Get("Content-Disposition") != "attachment; filename=kyc-report-"+c.ID+".pdf" || r.Header.Get("ETag") == "" {
		t.Fatalf("download: %d %v %s", r.Status, r.Header, r.Body)
	}
	text := pdftest.Text(t, r.Body)
	want := []string{"Adébísí Ọláoyè", "***5678", "***2109", "A07654321", "BUSINESS", "Textile trader", c.Phone, "VERIFIED",
		"Address 1 of 2", "Address 2 of 2", "12 Adeola Odeku Street", "Near the bank", "ID_CARD", "id.jpg", "Africa/Lagos", "SANDBOX"}
	for _, a := range s.Addresses {
		want = append(want, a.VerificationData.VerifiedAddress, a.VerificationData.Agent.Name)
	}
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("report text lacks %q", w)
		}
	}
	for _, raw := range []string{"22212345678", "98765432109"} {
		if strings.Contains(text, raw) || strings.Contains(string(r.Body), raw) {
			t.Errorf("unmasked %s in the report", raw)
		}
	}
	// The sandbox's photos (a sky over a building) are in the report, read
	// from the verification service: 5 of them, none unavailable.
	if strings.Contains(text, "Photo unavailable") || strings.Count(text, "WAT · ") < 5 {
		t.Errorf("photos missing from the report:\n%s", text)
	}
	if sky := skyPixels(t, r.Body); sky < 3000 {
		t.Errorf("%d pixels of the photos' sky: the photos are not drawn", sky)
	}
	if again := P.Do(t, harness.Request{Method: "GET", URL: P.GatewayURL + "/api/v1/customers/" + c.ID + "/report", Key: key,
		Header: map[string]string{"If-None-Match": r.Header.Get("ETag")}}); again.Status != http.StatusNotModified {
		t.Errorf("If-None-Match: %d", again.Status)
	}
	// reportUrl follows on the customer read and the status endpoint.
	waitReportURL(t, key, "/api/v1/customers/"+c.ID, c.ID)
	waitReportURL(t, key, "/api/v1/verification/"+c.ID+"/status", c.ID)
	// The code on the report vouches for it publicly, without a key.
	m := codeOnReport.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no verification code on the report:\n%s", text)
	}
	sum := sha256.Sum256(r.Body)
	v := verify(t, m[1])
	var got struct{ CustomerID, Status, SHA256, GeneratedAt string }
	if v.Status == http.StatusOK {
		v.Decode(t, &got)
	}
	if v.Status != http.StatusOK || got.CustomerID != c.ID || got.Status != "VERIFIED" || got.SHA256 != hex.EncodeToString(sum[:]) || got.GeneratedAt == "" {
		t.Fatalf("verify genuine code: %d %s", v.Status, v.Body)
	}
	if strings.Contains(string(v.Body), "Adébísí") || strings.Contains(string(v.Body), c.Phone) {
		t.Fatalf("verify answers personal data: %s", v.Body)
	}
	// A forged code: the genuine one with its last character changed.
	forged := m[1][:23] + map[bool]string{true: "B", false: "A"}[m[1][23] == 'A']
	if v := verify(t, forged); v.Status != http.StatusNotFound || v.Code() != "NOT_FOUND" {
		t.Errorf("forged code: %d %s", v.Status, v.Body)
	}
	// Nobody else gets the report: not the live key, not another organization.
	_, live := P.NewKey(t, org, "live")
	_, other := P.NewKey(t, P.NewOrg(t, "growth"), "test")
	for _, k := range []string{live, other} {
		if r := P.API(t, "GET", "/api/v1/customers/"+c.ID+"/report", k, nil); r.Status != http.StatusNotFound || r.Code() != "NOT_FOUND" {
			t.Errorf("another caller: %d %s", r.Status, r.Body)
		}
	}
}

func TestReportOfARejectedCustomerAndOneNotReady(t *testing.T) {
	t.Parallel()
	_, key := P.NewKey(t, P.NewOrg(t, "growth"), "test")
	stalled := create(t, key, newCustomer(map[string]any{"addresses": []map[string]any{
		{"streetName": "Allen Avenue", "city": "Ikeja", "state": "Lagos", "notes": "SANDBOX_STALL"}}}))
	// The reporting service learns of a customer from customer-events: a
	// few milliseconds after the create it is 404, then 409 until the end.
	deadline := time.Now().Add(10 * time.Second)
	r := P.API(t, "GET", "/api/v1/customers/"+stalled.ID+"/report", key, nil)
	for r.Status == http.StatusNotFound && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		r = P.API(t, "GET", "/api/v1/customers/"+stalled.ID+"/report", key, nil)
	}
	if r.Status != http.StatusConflict || r.Code() != "REPORT_NOT_READY" {
		t.Fatalf("customer still in progress: %d %s", r.Status, r.Body)
	}
	c := create(t, key, newCustomer(map[string]any{"addresses": []map[string]any{
		{"streetName": "Allen Avenue", "city": "Ikeja", "state": "Lagos", "notes": "SANDBOX_REJECT"}}}))
	waitOverall(t, key, c.ID, "REJECTED")
	r = waitReport(t, key, c.ID)
	if r.Status != http.StatusOK {
		t.Fatalf("download: %d %s", r.Status, r.Body)
	}
	text := pdftest.Text(t, r.Body)
	for _, w := range []string{"REJECTED", "ADDRESS_NOT_FOUND", "Ngozi Okafor", "SANDBOX"} {
		if !strings.Contains(text, w) {
			t.Errorf("report text lacks %q", w)
		}
	}
	if r := P.API(t, "GET", "/api/v1/customers/cus_0000000000000000000000000000000f/report", key, nil); r.Status != http.StatusNotFound {
		t.Errorf("unknown customer: %d %s", r.Status, r.Body)
	}
}

// TestReportVerifyIsRateLimitedPerIP runs on a gateway of its own, so
// that its bucket is not the other tests' (they all call from 127.0.0.1).
// The bucket holds 30 and refills one every 2 s, so a slow machine earns
// tokens while the test runs: it counts them from the elapsed time
// instead of assuming the 31st request comes within 2 s.
func TestReportVerifyIsRateLimitedPerIP(t *testing.T) {
	t.Parallel()
	gw, stop, err := P.StartGateway(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	const burst, perSecond = 30, 0.5
	start := time.Now()
	var last harness.Response
	for n := 1; ; n++ {
		last = P.Do(t, harness.Request{Method: "GET", URL: gw + "/api/v1/reports/verify/AAAAAAAAAAAAAAAAAAAAAAAA"})
		if last.Status != http.StatusNotFound {
			if n <= burst {
				t.Fatalf("request %d within the burst: %d %s", n, last.Status, last.Body)
			}
			break
		}
		if earned := burst + int(perSecond*time.Since(start).Seconds()) + 1; n > earned {
			t.Fatalf("request %d let through; at most %d tokens were earned", n, earned)
		}
	}
	if last.Status != http.StatusTooManyRequests || last.Code() != "RATE_LIMITED" {
		t.Fatalf("refused request: %d %s", last.Status, last.Body)
	}
	if s, err := strconv.Atoi(last.Header.Get("Retry-After")); err != nil || s < 1 {
		t.Fatalf("Retry-After %q", last.Header.Get("Retry-After"))
	}
}

// skyPixels counts, over every page rendered by a second reader
// (pdftoppm), the pixels of the sandbox photos' sky blue.
func skyPixels(t *testing.T, pdf []byte) int {
	t.Helper()
	return pdftest.Pixels(t, pdf, 30, pdftest.Colour{R: [2]uint8{116, 154}, G: [2]uint8{171, 209}, B: [2]uint8{216, 255}})
}

// TestEnterpriseWhiteLabelsItsReports: an Enterprise organization's
// branding replaces ours on its reports; a Growth one may not set it.
func TestEnterpriseWhiteLabelsItsReports(t *testing.T) {
	t.Parallel()
	_, growth := P.NewKey(t, P.NewOrg(t, "growth"), "test")
	body := map[string]any{"displayName": "Zenith Microfinance", "accentColour": "#7A1FA2"}
	if r := P.API(t, "PUT", "/api/v1/reports/branding", growth, body); r.Status != http.StatusForbidden || r.Code() != "PLAN_UPGRADE_REQUIRED" {
		t.Fatalf("growth: %d %s", r.Status, r.Body)
	}
	_, key := P.NewKey(t, P.NewOrg(t, "enterprise"), "test")
	if r := P.API(t, "PUT", "/api/v1/reports/branding", key, body); r.Status != http.StatusOK {
		t.Fatalf("enterprise: %d %s", r.Status, r.Body)
	}
	if r := P.API(t, "GET", "/api/v1/reports/branding", key, nil); r.Status != http.StatusOK || !strings.Contains(string(r.Body), "Zenith Microfinance") {
		t.Fatalf("read back: %d %s", r.Status, r.Body)
	}
	c := create(t, key, newCustomer(nil))
	waitOverall(t, key, c.ID, "VERIFIED")
	r := waitReport(t, key, c.ID)
	text := pdftest.Text(t, r.Body)
	if r.Status != http.StatusOK || !strings.Contains(text, "Zenith Microfinance") || strings.Contains(text, "KYC Field Verification Report") {
		t.Fatalf("report not white-labelled: %d\n%s", r.Status, text)
	}
}
