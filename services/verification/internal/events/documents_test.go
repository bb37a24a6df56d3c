package events_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/ids"
	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/services/verification/internal/events"
	"github.com/kycfield/kyc/services/verification/internal/verification"
)

// TestDocumentAddedReachesTheCase: a document appended through the
// document context is on the case (so the completed event lists it)
// straight from document.added, once however often it comes, and a later
// customer.updated that predates it (the customer context had not seen
// it yet) does not drop it. Another tenant's event changes nothing.
func TestDocumentAddedReachesTheCase(t *testing.T) {
	f := setup(t)
	cid := ids.New("cus")
	f.apply(t, f.customerEvent(t, events.TypeCustomerCreated, verification.EnvTest, cid, "Ngozi", []addr{newAddr("")}, nil))
	docs := inbox.New("verification.documents", nil, f.pool, logging.Discard(),
		inbox.HandlerOf(events.Subscriptions(f.sandbox, f.store.Within), "verification.documents"))
	added := func(org string) event.Event {
		e, err := event.New(events.TypeDocumentAdded, org, verification.EnvTest, map[string]any{"customerId": cid,
			"document": map[string]any{"id": "doc_0000000000000000000000000000beef", "customerId": cid, "documentType": "UTILITY_BILL",
				"fileName": "nepa.pdf", "fileUrl": "https://api.example.com/x", "fileType": "application/pdf", "fileSize": 99,
				"verified": false, "hosted": true, "uploadedAt": "2026-11-24T09:00:00.000Z"}})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	e := added(f.orgID)
	for _, ev := range []event.Event{e, e, added(f.orgID), added(ids.New("org"))} {
		if err := docs.Apply(f.context, ev); err != nil {
			t.Fatal(err)
		}
	}
	f.apply(t, f.customerEvent(t, events.TypeCustomerUpdated, verification.EnvTest, cid, "Ngozi", []addr{newAddr("")}, nil))
	c, err := f.store.Case(f.context, f.orgID, verification.EnvTest, cid)
	if err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	if err := json.Unmarshal(c.Documents, &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[1]["id"] != "doc_0000000000000000000000000000beef" || got[1]["fileName"] != "nepa.pdf" ||
		strings.Contains(string(c.Documents), "hosted") {
		t.Fatalf("documents on the case: %s", c.Documents)
	}
}
