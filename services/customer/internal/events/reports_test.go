package events_test

import (
	"context"
	"testing"

	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/pkg/optional"
	"github.com/kycfield/kyc/services/customer/internal/customer"
	"github.com/kycfield/kyc/services/customer/internal/events"
)

func generated(t *testing.T, orgID, env, customerID string) event.Event {
	t.Helper()
	e, err := event.New(events.TypeReportGenerated, orgID, env, map[string]any{"customerId": customerID,
		"reportId": "rep_0000000000000000000000000000abcd", "version": 1, "status": "VERIFIED",
		"reportUrl": "https://api.example.com/api/v1/customers/" + customerID + "/report", "sha256": "00", "size": 1,
		"generatedAt": "2026-11-23T10:00:00.000Z"})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// report.generated sets reportUrl on the customer read; other tenants'
// events change nothing, and one without a URL is skipped as permanent.
func TestReportGeneratedSetsReportURL(t *testing.T) {
	pool, store, svc := newService(t)
	who := customer.Caller{OrgID: "org_reports", Env: "test"}
	c, err := svc.Create(as(who), who, customer.CreateInput{Fields: customer.Fields{
		FirstName: optional.Of("Ngozi"), LastName: optional.Of("Okafor"), Phone: optional.Of("+2348035550102")},
		Addresses: optional.Of([]customer.AddressInput{{StreetName: optional.Of("Allen Avenue"), City: optional.Of("Ikeja"), State: optional.Of("Lagos")}})})
	if err != nil {
		t.Fatal(err)
	}
	if c.ReportURL != "" {
		t.Fatalf("a new customer has reportUrl %q", c.ReportURL)
	}
	in := inbox.New("customer.reports", nil, pool, logging.Discard(), inbox.HandlerOf(events.Subscriptions(svc, store.Within), "customer.reports"))
	ctx := context.Background()
	for _, e := range []event.Event{generated(t, "org_other", who.Env, c.ID), generated(t, who.OrgID, "live", c.ID)} {
		if err := in.Apply(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	if got, _ := svc.Get(ctx, who, c.ID); got.ReportURL != "" {
		t.Fatalf("another tenant's event set reportUrl %q", got.ReportURL)
	}
	e := generated(t, who.OrgID, who.Env, c.ID)
	for range 2 { // and a redelivery
		if err := in.Apply(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	got, err := svc.Get(ctx, who, c.ID)
	if err != nil || got.ReportURL != "https://api.example.com/api/v1/customers/"+c.ID+"/report" {
		t.Fatalf("reportUrl %q (%v)", got.ReportURL, err)
	}
	bad, _ := event.New(events.TypeReportGenerated, who.OrgID, who.Env, map[string]any{"customerId": c.ID})
	if err := in.Apply(ctx, bad); !inbox.IsPermanent(err) {
		t.Fatalf("report.generated without reportUrl: %v", err)
	}
}
