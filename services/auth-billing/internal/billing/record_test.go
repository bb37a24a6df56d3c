package billing

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/kycfield/kyc/pkg/apperr"
)

// fakeTx records the writes a use case makes.
type fakeTx struct {
	plan    string
	planErr error
	writes  []string
	added   []BillableVerification
}

func (f *fakeTx) CurrentPlan(_ context.Context, orgID string) (string, error) {
	f.writes = append(f.writes, "plan "+orgID)
	return f.plan, f.planErr
}

func (f *fakeTx) AddBillable(_ context.Context, v BillableVerification) (bool, error) {
	f.added = append(f.added, v)
	return true, nil
}

func (f *fakeTx) RaiseDailyRequests(_ context.Context, orgID string, day time.Time, n int64) error {
	f.writes = append(f.writes, fmt.Sprintf("requests %s %s %d", orgID, day.Format(time.DateOnly), n))
	return nil
}

func (f *fakeTx) TouchKey(_ context.Context, orgID, keyID string, at time.Time) error {
	f.writes = append(f.writes, fmt.Sprintf("touch %s %s %s", orgID, keyID, at.Format(time.RFC3339)))
	return nil
}

func TestRecordOutcome(t *testing.T) {
	svc := NewService(nil, prices, time.Now)
	when := at("2026-11-10T10:00:00Z")
	live := Outcome{EventID: "e1", OrgID: "org_1", Env: "live", CustomerID: "cus_1", AddressID: "adr_1", Status: "VERIFIED", OccurredAt: when}
	with := func(f func(*Outcome)) Outcome { o := live; f(&o); return o }
	for _, tc := range []struct {
		name    string
		in      Outcome
		plan    string
		planErr error
		want    *BillableVerification
		invalid bool
		err     bool
	}{
		{name: "live verified at the current plan's price", in: live, plan: "growth",
			want: &BillableVerification{EventID: "e1", OrgID: "org_1", CustomerID: "cus_1", AddressID: "adr_1", Outcome: "VERIFIED",
				Plan: "growth", UnitPriceCents: 200, OccurredAt: when}},
		{name: "live rejected is billed too", in: with(func(o *Outcome) { o.Status = "REJECTED" }), plan: "enterprise",
			want: &BillableVerification{EventID: "e1", OrgID: "org_1", CustomerID: "cus_1", AddressID: "adr_1", Outcome: "REJECTED",
				Plan: "enterprise", UnitPriceCents: 150, OccurredAt: when}},
		{name: "sandbox is free", in: with(func(o *Outcome) { o.Env = "test" }), plan: "growth"},
		{name: "not final", in: with(func(o *Outcome) { o.Status = "IN_PROGRESS" }), plan: "growth"},
		{name: "no address", in: with(func(o *Outcome) { o.AddressID = "" }), plan: "growth", invalid: true},
		{name: "no address, not billable either", in: Outcome{Env: "test", Status: "ASSIGNED"}, invalid: true},
		{name: "plan lookup fails", in: live, planErr: errors.New("db down"), err: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tx := &fakeTx{plan: tc.plan, planErr: tc.planErr}
			added, err := svc.RecordOutcome(context.Background(), tx, tc.in)
			ae, isApp := apperr.As(err)
			switch {
			case tc.invalid:
				if !isApp || ae.Kind != apperr.KindInvalid || len(tx.added) > 0 {
					t.Fatalf("got %v and %d charges; want a validation error and none", err, len(tx.added))
				}
				return
			case tc.err:
				if err == nil || isApp || len(tx.added) > 0 {
					t.Fatalf("got %v and %d charges; want the store's error and none", err, len(tx.added))
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			if tc.want == nil {
				if added || len(tx.added)+len(tx.writes) > 0 {
					t.Fatalf("not billable, yet %v %v", tx.writes, tx.added)
				}
				return
			}
			if !added || len(tx.added) != 1 || !reflect.DeepEqual(tx.added[0], *tc.want) {
				t.Fatalf("charged %+v; want %+v", tx.added, *tc.want)
			}
		})
	}
}

func TestRecordGatewayReport(t *testing.T) {
	svc := NewService(nil, prices, time.Now)
	day := at("2026-11-10T00:00:00Z")
	t1, t2 := at("2026-11-10T09:00:00Z"), at("2026-11-10T08:00:00Z")
	for _, tc := range []struct {
		name string
		in   GatewayReport
		want []string
	}{
		{"requests and keys, keys in id order", GatewayReport{OrgID: "org_1", Day: day, Requests: 42,
			KeysLastUsed: map[string]time.Time{"key_b": t1, "key_a": t2}},
			[]string{"requests org_1 2026-11-10 42", "touch org_1 key_a 2026-11-10T08:00:00Z", "touch org_1 key_b 2026-11-10T09:00:00Z"}},
		{"no requests counted", GatewayReport{OrgID: "org_1", Day: day, KeysLastUsed: map[string]time.Time{"key_a": t1}},
			[]string{"touch org_1 key_a 2026-11-10T09:00:00Z"}},
		{"empty report", GatewayReport{OrgID: "org_1", Day: day}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tx := &fakeTx{}
			if err := svc.RecordGatewayReport(context.Background(), tx, tc.in); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(tx.writes, tc.want) {
				t.Fatalf("writes %q; want %q", tx.writes, tc.want)
			}
		})
	}
}
