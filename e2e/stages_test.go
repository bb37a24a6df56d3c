package e2e

import (
	"encoding/json"
	"net/url"
	"slices"
	"testing"

	"github.com/kycfield/kyc/pkg/eventually"
)

var stageTypes = []string{"address.assigned", "address.checked_in", "address.attempted", "address.verified", "address.rejected", "report.ready"}

// A sandbox customer's stage events reach a loopback receiver one by one
// in the order they happened: each address is assigned, checked in and
// verified (the SANDBOX_NO_ACCESS one first finds no access, with a
// re-visit date, and is checked in again), then the report is ready.
// createdAt increases, every delivery verifies, none comes twice, and the
// events API lists the same bodies under the same ids, newest first.
func TestStageEventsOfASandboxCustomerArriveInOrder(t *testing.T) {
	t.Parallel()
	key := sandbox(t)
	rc := newHookReceiver(t, nil)
	e := registerHook(t, key, rc.URL+"/stages", map[string]any{"events": stageTypes})
	c := create(t, key, newCustomer(map[string]any{"addresses": []map[string]any{
		{"streetName": "Adeola Odeku Street", "city": "Lagos", "state": "Lagos"},
		{"streetName": "Allen Avenue", "city": "Ikeja", "state": "Lagos", "notes": "SANDBOX_NO_ACCESS"}}}))
	eventually.True(t, patience, "report.ready", func() bool { return len(rc.ofType(t, e.Secret, "report.ready")) == 1 })

	_ = rc.ofType(t, e.Secret, "") // verifies every delivery
	var got []hookBody
	perAddress := map[string][]string{}
	var ids []string
	for i, r := range rc.requests() {
		var b hookBody
		if err := json.Unmarshal(r.body, &b); err != nil {
			t.Fatal(err)
		}
		var d struct {
			CustomerID, AddressID, Reason string
			AgentID, NextVisitAt          *string
		}
		_ = json.Unmarshal(b.Data, &d)
		if d.CustomerID != c.ID || b.ID != r.header.Get("webhook-id") || slices.Contains(ids, b.ID) {
			t.Fatalf("delivery %d: %s", i, r.body)
		}
		if i > 0 && b.CreatedAt <= got[i-1].CreatedAt {
			t.Fatalf("delivery %d (%s at %s) after one at %s", i, b.Type, b.CreatedAt, got[i-1].CreatedAt)
		}
		if b.Type == "address.attempted" && (d.Reason != "NO_ACCESS" || d.NextVisitAt == nil) {
			t.Fatalf("attempt without its re-visit date: %s", b.Data)
		}
		if b.Type != "report.ready" {
			if d.AgentID == nil || *d.AgentID != "agt_sandbox" {
				t.Fatalf("no agent: %s", b.Data)
			}
			perAddress[d.AddressID] = append(perAddress[d.AddressID], b.Type)
		}
		got, ids = append(got, b), append(ids, b.ID)
	}
	if got[len(got)-1].Type != "report.ready" {
		t.Fatalf("the report is not last: %v", got)
	}
	plain := []string{"address.assigned", "address.checked_in", "address.verified"}
	revisited := []string{"address.assigned", "address.checked_in", "address.attempted", "address.checked_in", "address.verified"}
	for i, a := range c.Addresses { // in the order submitted
		want := plain
		if i == 1 {
			want = revisited
		}
		if !slices.Equal(perAddress[a.ID], want) {
			t.Fatalf("address %s: %v, want %v", a.ID, perAddress[a.ID], want)
		}
	}

	// The events API: the same bodies under the same ids, newest first.
	var listed []string
	for _, raw := range listAllEvents(t, key, url.Values{"customerId": {c.ID}}, 100) {
		var b hookBody
		_ = json.Unmarshal(raw, &b)
		if !slices.Contains(stageTypes, b.Type) {
			continue
		}
		i := slices.Index(ids, b.ID)
		if i < 0 || string(rc.requests()[i].body) != string(raw) {
			t.Fatalf("listed %s, delivered %v", raw, i)
		}
		listed = append(listed, b.ID)
	}
	slices.Reverse(listed)
	if !slices.Equal(listed, ids) {
		t.Fatalf("listed %v, delivered %v", listed, ids)
	}
}
