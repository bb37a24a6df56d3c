package customer

import (
	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/gazetteer"
)

// Addresses are checked against the gazetteer at intake, so that an
// address no agent covers ("Lagoss", "Atlantis") is refused with
// suggestions instead of waiting forever, and so that every address has a
// place to expect the agent.

// checkPlace normalises a's state, LGA and country to the gazetteer's
// names, or records one problem per field under path. Fields already
// refused (too long, missing) are left to that problem.
func checkPlace(ck *apperr.Checker, a *Address, path string) {
	in := gazetteer.Place{City: a.City, LGA: a.LGA, State: a.State, Country: a.Country}
	out, probs := gazetteer.Nigeria().Check(in)
	for _, p := range probs {
		ck.Add(apperr.Detail{Field: path + p.Field, Message: p.Message, Suggestions: p.Suggestions})
	}
	if len(probs) == 0 {
		a.LGA, a.State, a.Country = out.LGA, out.State, out.Country
	}
}

// ExpectedLocation is where the address should be: its town, else its
// LGA, else its state, in the embedded gazetteer. It is derived from the
// stored names rather than stored, so addresses recorded before intake
// checks have one too; ok is false for a stored state the gazetteer does
// not know.
func (a Address) ExpectedLocation() (gazetteer.Location, bool) {
	return gazetteer.Nigeria().ExpectedLocation(a.State, a.LGA, a.City)
}
