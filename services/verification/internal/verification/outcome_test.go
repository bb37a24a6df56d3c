package verification

import (
	"strings"
	"testing"

	"github.com/kycfield/kyc/pkg/apperr"
)

// TestOutcomeTextIsPlain: every free-text field an agent sends is refused
// with a 400 naming it when it holds a NUL, a terminal escape, a bell or
// invalid UTF-8; line breaks, tabs and any language's letters are fine.
func TestOutcomeTextIsPlain(t *testing.T) {
	ok := func() Outcome {
		return Outcome{Outcome: Verified, VerifiedAddress: "12 Adeola Odeku Street", At: Point{Latitude: 6.43, Longitude: 3.42, Accuracy: 8},
			Notes: "Met Ọláoyè.\nGate\tblue.", Resident: &Resident{Name: "Chidi", Relationship: "Brother"},
			Building: &Building{Type: "Bungalow", Colour: "Cream"}, Neighbour: &Neighbour{Confirmed: true, Notes: "Shop next door"}}
	}
	if err := ok().check(); err != nil {
		t.Fatalf("plain text refused: %v", err)
	}
	cases := []struct {
		field string
		set   func(o *Outcome)
	}{
		{"notes", func(o *Outcome) { o.Notes = "seen\x00" }},
		{"notes", func(o *Outcome) { o.Notes = "\x1b[2J cleared" }},
		{"verifiedAddress", func(o *Outcome) { o.VerifiedAddress = "12 Allen\x07 Avenue" }},
		{"verifiedAddress", func(o *Outcome) { o.VerifiedAddress = "12 Allen \xff Avenue" }},
		{"resident.name", func(o *Outcome) { o.Resident.Name = "Chidi\x00" }},
		{"resident.relationship", func(o *Outcome) { o.Resident.Relationship = "\x7f" }},
		{"building.type", func(o *Outcome) { o.Building.Type = "Duplex\x1b" }},
		{"building.colour", func(o *Outcome) { o.Building.Colour = "Red\u0085" }},
		{"neighbour.notes", func(o *Outcome) { o.Neighbour.Notes = "ok\x00" }},
		{"notes", func(o *Outcome) { o.Notes = strings.Repeat("a", maxText+1) }},
	}
	for _, c := range cases {
		o := ok()
		c.set(&o)
		e, isApp := apperr.As(o.check())
		if !isApp || e.Code != apperr.CodeValidation || len(e.Details) != 1 || e.Details[0].Field != c.field {
			t.Errorf("%s: %v", c.field, o.check())
		}
	}
}
