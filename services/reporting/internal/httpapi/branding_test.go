package httpapi_test

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/png"
	"net/http"
	"strings"
	"testing"

	"github.com/kycfield/kyc/pkg/pdftest"
	"github.com/kycfield/kyc/services/reporting/internal/events"
	"github.com/kycfield/kyc/services/reporting/internal/report"
)

func (f fixture) plan(t *testing.T, org, plan string, version int) {
	t.Helper()
	apply(t, f.orgs, newEvent(t, events.TypeOrganizationPlanChanged, tenant{org: org},
		map[string]any{"id": org, "version": version, "plan": map[string]any{"id": plan}}))
}

func logo(t *testing.T) string {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewRGBA(image.Rect(0, 0, 120, 40))); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

// TestEnterpriseBrandingIsOnItsReportsOnly: an Enterprise organization
// sets its branding and its next report carries it; other plans are
// refused; after a downgrade reports carry ours again.
func TestEnterpriseBrandingIsOnItsReportsOnly(t *testing.T) {
	t.Parallel()
	f := setup(t)
	who := newTenant("live")
	if r := f.get(t, who, "/api/v1/reports/branding", "X-Plan", "enterprise"); r.status != http.StatusNotFound {
		t.Fatalf("branding before any: %d %s", r.status, r.body)
	}
	body := `{"displayName":"Zenith Microfinance","accentColour":"#7A1FA2","logo":"` + logo(t) + `"}`
	if r := f.do(t, who, "PUT", "/api/v1/reports/branding", body, "X-Plan", "growth"); r.status != http.StatusForbidden || r.code() != report.CodePlanUpgradeRequired {
		t.Fatalf("growth plan: %d %s", r.status, r.body)
	}
	if r := f.do(t, who, "PUT", "/api/v1/reports/branding", `{"displayName":"Z","accentColour":"purple","extra":1}`, "X-Plan", "enterprise"); r.status != http.StatusBadRequest || r.code() != "VALIDATION_ERROR" {
		t.Fatalf("invalid branding: %d %s", r.status, r.body)
	}
	r := f.do(t, who, "PUT", "/api/v1/reports/branding", body, "X-Plan", "enterprise")
	if r.status != http.StatusOK || !strings.Contains(string(r.body), `"displayName":"Zenith Microfinance","accentColour":"#7A1FA2","hasLogo":true`) {
		t.Fatalf("set branding: %d %s", r.status, r.body)
	}
	// A save without "logo" keeps the saved one (a person changing the
	// colour has no file to send again); null removes it.
	if r := f.do(t, who, "PUT", "/api/v1/reports/branding", `{"displayName":"Zenith Microfinance","accentColour":"#7A1FA2"}`, "X-Plan", "enterprise"); r.status != http.StatusOK || !strings.Contains(string(r.body), `"hasLogo":true`) {
		t.Fatalf("a save without the logo lost it: %d %s", r.status, r.body)
	}
	if r := f.do(t, who, "PUT", "/api/v1/reports/branding", `{"displayName":"Zenith Microfinance","logo":null}`, "X-Plan", "enterprise"); r.status != http.StatusOK || !strings.Contains(string(r.body), `"hasLogo":false`) {
		t.Fatalf("logo null kept it: %d %s", r.status, r.body)
	}
	if r := f.do(t, who, "PUT", "/api/v1/reports/branding", body, "X-Plan", "enterprise"); r.status != http.StatusOK {
		t.Fatalf("set branding again: %d %s", r.status, r.body)
	}
	if r := f.get(t, tenant{who.org, "test"}, "/api/v1/reports/branding", "X-Plan", "enterprise"); r.status != http.StatusNotFound {
		t.Fatalf("the other environment sees the branding: %d %s", r.status, r.body)
	}
	f.plan(t, who.org, "enterprise", 2)
	id := f.customer(t, who, events.TypeCustomerCreated)
	f.outcome(t, outcome(t, who, id, report.Verified))
	text := pdftest.Text(t, f.report(t, who, id).body)
	if !strings.Contains(text, "Zenith Microfinance") || strings.Contains(text, "KYC Field Verification Report") {
		t.Fatalf("the Enterprise report is not white-labelled:\n%s", text)
	}
	f.plan(t, who.org, "growth", 3)
	f.plan(t, who.org, "enterprise", 1) // a late, older event changes nothing
	f.outcome(t, outcome(t, who, id, report.Verified))
	if text := pdftest.Text(t, f.report(t, who, id).body); strings.Contains(text, "Zenith Microfinance") {
		t.Fatalf("the branding outlived the downgrade:\n%s", text)
	}
}

// TestReportIsPreparedForTheOrganizationByName: the report names the
// organization it is prepared for, as auth-billing's events give it, and
// a later event without the name (published before names were) keeps it.
func TestReportIsPreparedForTheOrganizationByName(t *testing.T) {
	t.Parallel()
	f := setup(t)
	who := newTenant("live")
	apply(t, f.orgs, newEvent(t, events.TypeOrganizationCreated, tenant{org: who.org},
		map[string]any{"id": who.org, "name": "Adúnní Microfinance Bank", "version": 1, "plan": map[string]any{"id": "growth"}}))
	f.plan(t, who.org, "enterprise", 2)
	id := f.customer(t, who, events.TypeCustomerCreated)
	f.outcome(t, outcome(t, who, id, report.Verified))
	text := pdftest.Text(t, f.report(t, who, id).body)
	if !strings.Contains(text, "Adúnní Microfinance Bank") || strings.Contains(text, who.org) {
		t.Fatalf("the report is not prepared for the organization by name:\n%s", text)
	}
}
