package inbox

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/event"
)

func TestOn(t *testing.T) {
	type data struct{ CustomerID string }
	var got []string
	h := Handle(On(func(_ context.Context, _ pgx.Tx, _ event.Event, d data) error {
		got = append(got, d.CustomerID)
		switch d.CustomerID {
		case "invalid":
			return apperr.Validation(apperr.Detail{Field: "customerId", Message: "is malformed"})
		case "down":
			return errors.New("connection refused")
		}
		return nil
	}, "report.generated"))
	cases := []struct {
		name, typ, data string
		permanent, fail bool
	}{
		{"applied", "report.generated", `{"CustomerID":"cus_1"}`, false, false},
		{"another type is skipped", "customer.created", `not even JSON`, false, false},
		{"undecodable data cannot be retried into shape", "report.generated", `{"CustomerID":`, true, true},
		{"invalid input is permanent", "report.generated", `{"CustomerID":"invalid"}`, true, true},
		{"other failures are retried", "report.generated", `{"CustomerID":"down"}`, false, true},
	}
	for _, c := range cases {
		err := h(context.Background(), nil, event.Event{Type: c.typ, Data: []byte(c.data)})
		if (err != nil) != c.fail || IsPermanent(err) != c.permanent {
			t.Errorf("%s: %v (permanent %v)", c.name, err, IsPermanent(err))
		}
	}
	if len(got) != 3 || got[0] != "cus_1" {
		t.Fatalf("applied %v", got)
	}
}

// TestReadsAreTheRegistrations: the contract a service declares is what
// its routes decode into, type by type, and an event goes to the route
// that names its type.
func TestReadsAreTheRegistrations(t *testing.T) {
	type created struct{ ID string }
	type paid struct{ Amount int }
	var got []string
	subs := []Subscription{
		{Group: "a", Routes: []Route{
			On(func(_ context.Context, _ pgx.Tx, e event.Event, d created) error {
				got = append(got, e.Type+":"+d.ID)
				return nil
			}, "x.created", "x.updated"),
			On(func(_ context.Context, _ pgx.Tx, e event.Event, d paid) error { got = append(got, e.Type); return nil }, "x.paid"),
		}},
		{Group: "b", Routes: []Route{On(func(context.Context, pgx.Tx, event.Event, created) error { return nil }, "x.created")}},
	}
	reads := Reads(subs...)
	want := []string{"x.created main.created", "x.updated main.created", "x.paid main.paid"}
	if len(reads) != len(want) {
		t.Fatalf("reads %v, want %d of them (the same type into the same struct once)", reads, len(want))
	}
	for i, r := range reads {
		if r.Type != strings.Fields(want[i])[0] || reflect.TypeOf(r.Into).Name() != strings.TrimPrefix(strings.Fields(want[i])[1], "main.") {
			t.Errorf("read %d: %s into %T, want %s", i, r.Type, r.Into, want[i])
		}
	}
	h := HandlerOf(subs, "a")
	for _, e := range []event.Event{{Type: "x.updated", Data: []byte(`{"ID":"1"}`)}, {Type: "x.paid", Data: []byte(`{}`)}, {Type: "y.other", Data: []byte(`nope`)}} {
		if err := h(context.Background(), nil, e); err != nil {
			t.Fatal(err)
		}
	}
	if strings.Join(got, ",") != "x.updated:1,x.paid" || HandlerOf(subs, "c") != nil {
		t.Fatalf("routed %v", got)
	}
}
