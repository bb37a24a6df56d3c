package verification

import (
	"slices"
	"strings"
	"testing"

	"github.com/kycfield/kyc/pkg/apperr"
)

// An agent covers an address whatever spelling of its state and LGA
// either side uses.
func TestCoversAcceptsSpellingVariants(t *testing.T) {
	a := FieldAgent{States: []string{"Lagos"}, LGAs: []string{"Eti-Osa"}}
	cases := []struct {
		state, lga     string
		inState, inLGA bool
	}{
		{"Lagos", "Eti Osa", true, true},
		{"lagos state", "ETI-OSA", true, true},
		{"Lagos", "Eti-Osa LGA", true, true},
		{"Lagos", "Ikeja", true, false},
		{"Ogun", "Eti Osa", false, false},
		{"Lagos", "", true, false},
	}
	for _, c := range cases {
		inState, inLGA := a.Covers(c.state, c.lga)
		if inState != c.inState || inLGA != c.inLGA {
			t.Errorf("Covers(%q, %q) = %v, %v; want %v, %v", c.state, c.lga, inState, inLGA, c.inState, c.inLGA)
		}
	}
}

// Agents are created with official names; an unknown state or an LGA
// outside the agent's states is refused with the field named.
func TestAgentPlacesAreChecked(t *testing.T) {
	in, err := AgentInput{Name: "Ada Obi", Phone: "+2348031234567", States: []string{"lagos state"}, LGAs: []string{"eti-osa"}}.check()
	if err != nil || in.States[0] != "Lagos" || !strings.EqualFold(strings.ReplaceAll(in.LGAs[0], "-", " "), "eti osa") {
		t.Fatalf("normalised input: %+v %v", in, err)
	}
	for _, tc := range []struct {
		in    AgentInput
		field string
	}{
		{AgentInput{Name: "Ada Obi", Phone: "+2348031234567", States: []string{"Lagoss"}}, "states[0]"},
		{AgentInput{Name: "Ada Obi", Phone: "+2348031234567", States: []string{"Kano"}, LGAs: []string{"Ikeja"}}, "lgas[0]"},
	} {
		_, err := tc.in.check()
		ae, ok := apperr.As(err)
		if !ok || !slices.ContainsFunc(ae.Details, func(d apperr.Detail) bool { return d.Field == tc.field }) {
			t.Errorf("%+v: %v; want a detail on %s", tc.in, err, tc.field)
		}
	}
}

// A live completion far from where the address should be is flagged
// with the distance in words; one near it is not.
func TestFarFromExpectedLocation(t *testing.T) {
	a := Address{City: "Ikeja", LGA: "Ikeja", State: "Lagos"}
	l, _ := ExpectedLocation(a)
	for _, tc := range []struct {
		northKM float64
		flagged bool
	}{{0.5, false}, {4.9, false}, {17.2, true}} {
		var flags flagSet
		var r Result
		expectedFlags(a, Point{Latitude: l.Latitude + tc.northKM/111.2, Longitude: l.Longitude}, &r, &flags)
		got := len(flags.details) == 1 && flags.details[0].Code == FlagFarFromExpected
		if got != tc.flagged || r.DistanceFromExpectedMeters == nil {
			t.Errorf("%.1f km north: flags %+v, distance %v", tc.northKM, flags.details, r.DistanceFromExpectedMeters)
		}
		if got && !strings.HasPrefix(flags.details[0].Message, "The visit was completed 17.2 km from where the address should be (the centre of Ikeja") {
			t.Errorf("sentence: %q", flags.details[0].Message)
		}
	}
}
