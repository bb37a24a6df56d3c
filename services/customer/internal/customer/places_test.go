package customer

import (
	"errors"
	"slices"
	"testing"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/optional"
)

// What a lender sees at intake: loose names stored canonical, and one
// detail per wrong field, under the address's path, with suggestions.
func TestAddressPlaceIsChecked(t *testing.T) {
	type detail struct {
		field string
		first string // first suggestion, "" for none
	}
	addr := func(city, lga, state, country string) AddressInput {
		in := AddressInput{StreetName: optional.Of("Allen Avenue"), City: optional.Of(city), State: optional.Of(state)}
		if lga != "" {
			in.LGA = optional.Of(lga)
		}
		if country != "" {
			in.Country = optional.Of(country)
		}
		return in
	}
	for _, tc := range []struct {
		name               string
		in                 AddressInput
		lga, state, countr string
		details            []detail
	}{
		{"loose names", addr("Ikeja", "ikeja lga", "lagos state", "ng"), "Ikeja", "Lagos", "Nigeria", nil},
		{"spelling variant", addr("Lekki", "ETI-OSA", "Lagos", ""), "Eti Osa", "Lagos", "Nigeria", nil},
		{"abuja", addr("Garki", "", "Abuja", "Nigeria"), "", "FCT", "Nigeria", nil},
		{"misspelt state", addr("Ikeja", "", "Lagoss", ""), "", "", "", []detail{{"addresses[0].state", "Lagos"}}},
		{"unknown state", addr("Atlantis", "", "Atlantis", ""), "", "", "", []detail{{"addresses[0].state", ""}}},
		{"lga of another state", addr("Kano", "Ikeja", "Kano", ""), "", "", "", []detail{{"addresses[0].state", "Lagos"}, {"addresses[0].lga", ""}}},
		{"abroad", addr("Accra", "", "Lagos", "Ghana"), "", "", "", []detail{{"addresses[0].country", ""}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ck apperr.Checker
			a := checkAddress(&ck, tc.in, "addresses[0].")
			err := ck.Err()
			if tc.details == nil {
				if err != nil || a.LGA != tc.lga || a.State != tc.state || a.Country != tc.countr {
					t.Fatalf("got %q/%q/%q, %v; want %q/%q/%q", a.LGA, a.State, a.Country, err, tc.lga, tc.state, tc.countr)
				}
				if loc, ok := a.ExpectedLocation(); !ok || loc.Precision == "" {
					t.Fatalf("no expected location for %+v", a)
				}
				return
			}
			var e *apperr.Error
			if !errors.As(err, &e) || e.Code != apperr.CodeValidation || len(e.Details) != len(tc.details) {
				t.Fatalf("got %v, want %d details", err, len(tc.details))
			}
			for i, d := range tc.details {
				got := e.Details[i]
				if got.Field != d.field || got.Message == "" || (d.first != "" && !slices.Contains(got.Suggestions, d.first)) {
					t.Errorf("detail %d = %+v, want field %s suggesting %q", i, got, d.field, d.first)
				}
			}
		})
	}
}
