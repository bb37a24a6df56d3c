package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/services/customer/internal/customer"
	"github.com/kycfield/kyc/services/customer/internal/customer/view"
	"github.com/kycfield/kyc/services/customer/internal/events"
)

// A live address's dueBy arrives with verification's address events: it
// is kept (a later event without one does not erase it) and shown by the
// customer read and the status; a sandbox address shows null.
func TestDueByFromVerificationEvents(t *testing.T) {
	t.Parallel()
	f := setup(t)
	live := customer.Caller{OrgID: "org_due", Env: "live"}
	sandbox := customer.Caller{OrgID: "org_due", Env: "test"}
	consumer := inbox.New("test", nil, f.pool, logging.Discard(), inbox.HandlerOf(events.Subscriptions(f.svc, f.store.Within), "customer.verification-status"))
	due := time.Date(2026, 11, 29, 9, 30, 0, 0, time.UTC)
	for i, tc := range []struct {
		who  customer.Caller
		due  *time.Time
		want *string
	}{
		{live, &due, view.Of(customer.Customer{Addresses: []customer.Address{{DueBy: &due}}}).Addresses[0].DueBy},
		{sandbox, nil, nil},
	} {
		c, err := f.svc.Create(as(tc.who), tc.who, input("+234803000010"+string(rune('0'+i)), nil))
		if err != nil {
			t.Fatal(err)
		}
		apply := func(seq int64, status string, dueBy *time.Time) {
			d := map[string]any{"customerId": c.ID, "addressId": c.Addresses[0].ID, "status": status, "sequence": seq,
				"occurredAt": time.Now(), "overallStatus": "IN_PROGRESS"}
			if dueBy != nil {
				d["dueBy"] = dueBy
			}
			e, _ := event.New(events.TypeAddressUpdated, tc.who.OrgID, tc.who.Env, d)
			if err := consumer.Apply(context.Background(), e); err != nil {
				t.Fatal(err)
			}
		}
		apply(2, "ASSIGNED", tc.due)
		apply(3, "IN_PROGRESS", nil)
		got, err := f.svc.Get(context.Background(), tc.who, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		shown, status := view.Of(got).Addresses[0].DueBy, view.StatusOf(got).Addresses[0].DueBy
		if (shown == nil) != (tc.want == nil) || (shown != nil && *shown != *tc.want) || (status == nil) != (shown == nil) {
			t.Fatalf("%s: dueBy %v / status %v, want %v", tc.who.Env, shown, status, tc.want)
		}
	}
}
