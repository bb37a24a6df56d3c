package verification

import (
	"strings"

	"github.com/kycfield/kyc/pkg/gazetteer"
)

// places is the embedded gazetteer of Nigerian states, LGAs and towns
// (pkg/gazetteer, decoded on first use): the same data the customer
// service checks addresses against, so both contexts agree on names and
// expected locations.
func places() *gazetteer.Gazetteer { return gazetteer.Nigeria() }

// ExpectedLocation is where an address should be, from its town, else its
// LGA, else its state; ok is false for a state the gazetteer does not
// know (an address stored before intake checks).
func ExpectedLocation(a Address) (gazetteer.Location, bool) {
	return places().ExpectedLocation(a.State, a.LGA, a.City)
}

// farFromExpected is how far a completion may be from the expected
// location before FAR_FROM_EXPECTED_LOCATION is raised, by what the
// expected location stands for. A town's point is its centre (Nigerian
// towns in the gazetteer span up to a few km), an LGA's is a town in it
// (LGAs span up to about 40 km), a state's its most central town (the
// largest states span about 300 km). docs/guides/agents.md has the
// measurement behind each.
var farFromExpected = map[gazetteer.Precision]float64{
	gazetteer.PrecisionTown:  5_000,
	gazetteer.PrecisionLGA:   20_000,
	gazetteer.PrecisionState: 150_000,
}

// precisionWords says what an expected location stands for, in a flag's
// sentence.
func precisionWords(a Address, l gazetteer.Location) string {
	switch l.Precision {
	case gazetteer.PrecisionTown:
		return "the centre of " + a.City
	case gazetteer.PrecisionLGA:
		return "the reference point of " + a.LGA + " LGA"
	}
	return "the reference point of " + a.State + " state"
}

// sameState reports whether two names are the same state (in any of the
// forms the gazetteer accepts).
func sameState(a, b string) bool {
	na, okA := places().NormalizeState(a)
	nb, okB := places().NormalizeState(b)
	if okA && okB {
		return na == nb
	}
	return strings.EqualFold(strings.TrimSpace(a), strings.TrimSpace(b))
}

// sameLGA reports whether two names are the same LGA of state, spelling
// variants included ("Eti-Osa", "Eti Osa", "ETI-OSA").
func sameLGA(state, a, b string) bool {
	na, okA := places().NormalizeLGA(state, a)
	nb, okB := places().NormalizeLGA(state, b)
	if okA && okB {
		return na == nb
	}
	return strings.EqualFold(strings.TrimSpace(a), strings.TrimSpace(b))
}
