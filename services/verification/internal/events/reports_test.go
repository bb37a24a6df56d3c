package events_test

import (
	"testing"

	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/ids"
	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/services/verification/internal/events"
	"github.com/kycfield/kyc/services/verification/internal/verification"
)

// report.generated sets the case's reportUrl for the status read; other
// tenants' events change nothing, and one without a URL is permanent.
func TestReportGeneratedSetsTheStatusReportURL(t *testing.T) {
	f := setup(t)
	id := ids.New("cus")
	if err := f.inbox.Apply(f.context, f.customerEvent(t, "customer.created", "test", id, "Ngozi", []addr{newAddr("")}, nil)); err != nil {
		t.Fatal(err)
	}
	in := inbox.New("verification.reports", nil, f.pool, logging.Discard(), events.Reports(f.sandbox, f.store.Within))
	url := "https://api.example.com/api/v1/customers/" + id + "/report"
	gen := func(org, env string, data map[string]any) event.Event {
		e, err := event.New(events.TypeReportGenerated, org, env, data)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	for _, e := range []event.Event{
		gen(ids.New("org"), "test", map[string]any{"customerId": id, "reportUrl": "https://evil.example.com"}),
		gen(f.orgID, "live", map[string]any{"customerId": id, "reportUrl": "https://evil.example.com"}),
		gen(f.orgID, "test", map[string]any{"customerId": id, "reportUrl": url}),
	} {
		if err := in.Apply(f.context, e); err != nil {
			t.Fatal(err)
		}
	}
	c, err := f.sandbox.Status(f.context, verification.Caller{OrgID: f.orgID, Env: "test"}, id)
	if err != nil || c.ReportURL != url {
		t.Fatalf("reportUrl %q (%v)", c.ReportURL, err)
	}
	if err := in.Apply(f.context, gen(f.orgID, "test", map[string]any{"customerId": id})); !inbox.IsPermanent(err) {
		t.Fatalf("without reportUrl: %v", err)
	}
}
