package postgres_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/pkg/optional"
	"github.com/kycfield/kyc/services/customer/internal/customer"
	"github.com/kycfield/kyc/services/customer/internal/customer/view"
	"github.com/kycfield/kyc/services/customer/internal/events"
)

// statusJSON is the status response's data as a lender receives it.
func statusJSON(t *testing.T, c customer.Customer) []byte {
	t.Helper()
	b, err := json.Marshal(view.StatusOf(c))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The status poll reads one statement instead of Get's snapshot
// transaction; in every state a customer and its addresses go through, its
// answer is the one the full read gave, byte for byte.
func TestStatusReadAnswersAsTheFullReadInEveryState(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ctx := context.Background()
	consumer := inbox.New("test", nil, f.pool, logging.Discard(), inbox.HandlerOf(events.Subscriptions(f.svc, f.store.Within), "customer.verification-status"))
	due := time.Date(2026, 11, 29, 9, 30, 0, 123456000, time.UTC)
	type move struct {
		address  int
		status   string
		overall  string
		data     string
		dueBy    *time.Time
		decision bool // verificationDate set (a final overall status)
	}
	full := func(in *customer.CreateInput) {
		in.LoanID, in.LoanType = optional.Of("LN-0042"), optional.Of("BUSINESS")
		in.BVN, in.NIN = optional.Of("22334455667"), optional.Of("11223344556")
		a := customer.AddressInput{Label: optional.Of("Shop"), StreetNumber: optional.Of("12"), StreetName: optional.Of("Allen Avenue"),
			Landmark: optional.Of("By the bank"), City: optional.Of("Ikeja"), LGA: optional.Of("Ikeja"), State: optional.Of("Lagos"),
			Notes: optional.Of("Ask for Bola")}
		in.Addresses.V = append(in.Addresses.V, a)
		in.Documents = optional.Of([]customer.DocumentInput{
			{DocumentType: optional.Of("UTILITY_BILL"), FileName: optional.Of("bill.pdf"), FileURL: optional.Of("https://files.example.com/bill.pdf"),
				FileType: optional.Of("application/pdf"), FileSize: optional.Of(int64(48213))},
			{DocumentType: optional.Of("ID_CARD")},
		})
	}
	evidence := `{"verifiedAddress": "12 Allen Avenue, Ikeja", "verifiedLatitude": 6.6018, "verifiedLongitude": 3.3515, "photoCount": 3, "agent": {"id": "agt_1", "name": "Tunde <Bakare>"}}`
	for i, tc := range []struct {
		name   string
		who    customer.Caller
		extra  func(*customer.CreateInput)
		moves  []move
		report bool
	}{
		{name: "new, one address", who: customer.Caller{OrgID: "org_st", Env: "test"}},
		{name: "new, loan, documents, two addresses", who: customer.Caller{OrgID: "org_st", Env: "test"}, extra: full},
		{name: "assigned with dueBy (live)", who: customer.Caller{OrgID: "org_st", Env: "live"}, extra: full,
			moves: []move{{address: 0, status: "ASSIGNED", overall: "IN_PROGRESS", dueBy: &due}}},
		{name: "one verified, one in review", who: customer.Caller{OrgID: "org_st", Env: "test"}, extra: full,
			moves: []move{{address: 0, status: "VERIFIED", overall: "IN_PROGRESS", data: evidence}, {address: 1, status: "IN_REVIEW", overall: "IN_PROGRESS"}}},
		{name: "verified with report", who: customer.Caller{OrgID: "org_st", Env: "test"}, report: true,
			moves: []move{{address: 0, status: "VERIFIED", overall: "VERIFIED", data: evidence, decision: true}}},
		{name: "rejected", who: customer.Caller{OrgID: "org_st", Env: "live"}, extra: full,
			moves: []move{{address: 0, status: "VERIFIED", overall: "IN_PROGRESS", data: evidence, dueBy: &due},
				{address: 1, status: "REJECTED", overall: "REJECTED", data: `{"reason": "not found"}`, decision: true}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := input(fmt.Sprintf("+2348030000%d", 300+i), tc.extra)
			if in.LoanID.Has() {
				in.LoanID = optional.Of(fmt.Sprintf("LN-%04d", i)) // a loanId is one customer's
			}
			c, err := f.svc.Create(as(tc.who), tc.who, in)
			if err != nil {
				t.Fatal(err)
			}
			for i, m := range tc.moves {
				d := map[string]any{"customerId": c.ID, "addressId": c.Addresses[m.address].ID, "status": m.status,
					"sequence": int64(i + 1), "occurredAt": time.Now(), "overallStatus": m.overall}
				if m.data != "" {
					d["verificationData"] = json.RawMessage(m.data)
				}
				if m.dueBy != nil {
					d["dueBy"] = m.dueBy
				}
				if m.decision {
					d["verificationDate"] = time.Now()
				}
				e, _ := event.New(events.TypeAddressUpdated, tc.who.OrgID, tc.who.Env, d)
				if err := consumer.Apply(ctx, e); err != nil {
					t.Fatal(err)
				}
			}
			if tc.report {
				if err := f.store.Atomic(ctx, func(tx customer.Tx) error {
					_, err := tx.SetReportURL(ctx, tc.who.OrgID, tc.who.Env, c.ID, "https://api.example.com/api/v1/customers/"+c.ID+"/report")
					return err
				}); err != nil {
					t.Fatal(err)
				}
			}
			before, err := f.svc.Get(ctx, tc.who, c.ID)
			if err != nil {
				t.Fatal(err)
			}
			now, err := f.svc.Status(ctx, tc.who, c.ID)
			if err != nil {
				t.Fatal(err)
			}
			if want, got := statusJSON(t, before), statusJSON(t, now); !bytes.Equal(want, got) {
				t.Fatalf("status read differs from the full read:\n got %s\nwant %s", got, want)
			}
		})
	}
}

// The status read is scoped as every read is: another organization's,
// the other environment's and a deleted customer answer not found, as do
// an unknown and a malformed id.
func TestStatusReadIsScopedAndForgetsDeletedCustomers(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ctx := context.Background()
	owner := customer.Caller{OrgID: "org_own", Env: "test"}
	kept, err := f.svc.Create(as(owner), owner, input("+2348030000201", nil))
	if err != nil {
		t.Fatal(err)
	}
	gone, err := f.svc.Create(as(owner), owner, input("+2348030000202", nil))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Status(ctx, owner, gone.ID); err != nil {
		t.Fatalf("before the delete: %v", err)
	}
	if err := f.svc.Delete(as(owner), owner, gone.ID); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		who  customer.Caller
		id   string
	}{
		{"another organization's", customer.Caller{OrgID: "org_other", Env: "test"}, kept.ID},
		{"the live environment's", customer.Caller{OrgID: "org_own", Env: "live"}, kept.ID},
		{"deleted", owner, gone.ID},
		{"unknown", owner, "cus_0000000000000000000000000000000a"},
		{"malformed", owner, "not-an-id"},
	} {
		if _, err := f.svc.Status(ctx, tc.who, tc.id); !errors.Is(err, customer.ErrNotFound) {
			t.Errorf("%s: %v, want not found", tc.name, err)
		}
	}
	if got, err := f.svc.Status(ctx, owner, kept.ID); err != nil || got.ID != kept.ID {
		t.Fatalf("the owner's own customer: %+v %v", got, err)
	}
}
