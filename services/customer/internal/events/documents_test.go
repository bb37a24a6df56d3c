package events_test

import (
	"context"
	"testing"
	"time"

	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/pkg/optional"
	"github.com/kycfield/kyc/services/customer/internal/customer"
	"github.com/kycfield/kyc/services/customer/internal/events"
)

func added(t *testing.T, orgID, env, customerID, docID, docType string) event.Event {
	t.Helper()
	e, err := event.New(events.TypeDocumentAdded, orgID, env, map[string]any{"customerId": customerID, "document": map[string]any{
		"id": docID, "customerId": customerID, "documentType": docType, "fileName": "scan.pdf",
		"fileUrl":  "https://api.example.com/api/v1/customers/" + customerID + "/documents/" + docID + "/file",
		"fileType": "image/png", "fileSize": 4242, "verified": false, "hosted": true, "uploadedAt": "2026-11-23T10:00:00.000Z"}})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// document.added appends the document to the customer read, once, after
// the documents sent at creation; other tenants' and unknown customers'
// events change nothing, and a malformed one is skipped as permanent.
func TestDocumentAddedAppearsOnTheCustomer(t *testing.T) {
	pool, store, svc := newService(t)
	who := customer.Caller{OrgID: "org_docs", Env: "test"}
	c, err := svc.Create(as(who), who, customer.CreateInput{Fields: customer.Fields{
		FirstName: optional.Of("Ngozi"), LastName: optional.Of("Okafor"), Phone: optional.Of("+2348035550101")},
		Addresses: optional.Of([]customer.AddressInput{{StreetName: optional.Of("Allen Avenue"), City: optional.Of("Ikeja"), State: optional.Of("Lagos")}}),
		Documents: optional.Of([]customer.DocumentInput{{DocumentType: optional.Of("ID_CARD")}})})
	if err != nil {
		t.Fatal(err)
	}
	in := inbox.New("customer.documents", nil, pool, logging.Discard(), inbox.HandlerOf(events.Subscriptions(svc, store.Within), "customer.documents"))
	ctx := context.Background()
	e := added(t, who.OrgID, who.Env, c.ID, "doc_0000000000000000000000000000abcd", "UTILITY_BILL")
	for _, ev := range []event.Event{
		e,
		added(t, who.OrgID, who.Env, c.ID, "doc_0000000000000000000000000000abcd", "UTILITY_BILL"), // the same document, a new event id
		added(t, "org_other", who.Env, c.ID, "doc_0000000000000000000000000000ffff", "OTHER"),
		added(t, who.OrgID, "live", c.ID, "doc_0000000000000000000000000000eeee", "OTHER"),
		added(t, who.OrgID, who.Env, "cus_unknown", "doc_0000000000000000000000000000dddd", "OTHER"),
	} {
		if err := in.Apply(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := in.Apply(ctx, e); err != nil { // redelivery
		t.Fatal(err)
	}
	if err := in.Apply(ctx, added(t, who.OrgID, who.Env, c.ID, "doc_0000000000000000000000000000cccc", "SELFIE")); !inbox.IsPermanent(err) {
		t.Fatalf("unknown documentType: %v", err)
	}
	got, err := svc.Get(ctx, who, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Documents) != 2 || got.Documents[0].DocumentType != "ID_CARD" {
		t.Fatalf("documents %+v", got.Documents)
	}
	d := got.Documents[1]
	if d.ID != "doc_0000000000000000000000000000abcd" || d.DocumentType != "UTILITY_BILL" || d.FileType != "image/png" || d.FileSize != 4242 ||
		!d.UploadedAt.Equal(time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)) {
		t.Fatalf("added document %+v", d)
	}
}
