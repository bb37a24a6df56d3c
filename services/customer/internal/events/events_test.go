package events

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kycfield/kyc/services/customer/internal/customer"
)

func TestOfPublishesTheChangeAsShown(t *testing.T) {
	at := time.Date(2026, 11, 2, 9, 30, 0, 0, time.UTC)
	c := customer.Customer{ID: "cus_1", OrgID: "org_1", Env: customer.EnvLive, FirstName: "Ngozi", NIN: "98765432109", Status: customer.StatusPending}
	a := customer.Address{ID: "adr_2", City: "Ikeja", Status: customer.AddressPending}
	cases := []struct {
		ch   customer.Change
		want []string // in the data
		not  []string
	}{
		{customer.Change{Type: customer.EventCreated, Customer: c}, []string{`"customerId":"cus_1"`, `"nin":"***2109"`}, []string{"98765432109", "changedFields", "address\"", "deletedAt"}},
		{customer.Change{Type: customer.EventUpdated, Customer: c, Changed: []string{"nin"}}, []string{`"changedFields":["nin"]`}, nil},
		{customer.Change{Type: customer.EventAddressAdded, Customer: c, Address: &a}, []string{`"address":{"id":"adr_2"`}, nil},
		{customer.Change{Type: customer.EventDeleted, Customer: func() customer.Customer { d := c; d.DeletedAt = &at; return d }()},
			[]string{`"deletedAt":"2026-11-02T09:30:00.000Z"`}, nil},
	}
	for _, tc := range cases {
		e, err := Of(tc.ch)
		if err != nil {
			t.Fatal(err)
		}
		if e.Type != tc.ch.Type || e.OrgID != "org_1" || e.Environment != customer.EnvLive || e.ID == "" {
			t.Errorf("%s: envelope %+v", tc.ch.Type, e)
		}
		if !json.Valid(e.Data) {
			t.Fatalf("%s: data %s", tc.ch.Type, e.Data)
		}
		for _, w := range tc.want {
			if !strings.Contains(string(e.Data), w) {
				t.Errorf("%s: %s not in %s", tc.ch.Type, w, e.Data)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(string(e.Data), n) {
				t.Errorf("%s: %s in %s", tc.ch.Type, n, e.Data)
			}
		}
	}
}
