package gazetteer

import "github.com/kycfield/kyc/pkg/gazetteer/internal/key"

// stateAliases are the names people use for a state that are not its name
// with or without " State" (keys are folded: lower-case letters only).
var stateAliases = map[string]string{
	"abuja":                        "FCT",
	"federalcapitalterritory":      "FCT",
	"federalcapitalterritoryabuja": "FCT",
	"fctabuja":                     "FCT",
	"abujafct":                     "FCT",
}

// lgaAliases are well-known short names of LGAs that no spelling rule
// reaches (keys are folded).
var lgaAliases = []struct{ alias, state, lga string }{
	{"amac", "FCT", "Abuja Municipal Area Council"},
	{"abuja", "FCT", "Abuja Municipal Area Council"},
}

// countryNames are the ways "Nigeria" is written in addresses (folded).
var countryNames = map[string]bool{"nigeria": true, "ng": true, "nga": true, "federalrepublicofnigeria": true}

// Country is the canonical country name of every address the gazetteer
// knows.
const Country = "Nigeria"

// IsNigeria reports whether country names Nigeria ("Nigeria", "NG", "NGA",
// any case, spacing or punctuation).
func IsNigeria(country string) bool { return countryNames[key.Of(country)] }

// NormalizeState returns the canonical name of a state ("Lagos", "Akwa
// Ibom", "FCT") for any common way of writing it: any case, spacing or
// punctuation, with or without "State", and "Abuja" or "Federal Capital
// Territory" for the FCT.
func (g *Gazetteer) NormalizeState(name string) (string, bool) {
	if s := g.state(name); s != nil {
		return s.name, true
	}
	return "", false
}

// NormalizeLGA returns the canonical name of an LGA of the state (itself
// normalised), accepting spelling variants: "Eti Osa", "Eti-Osa",
// "ETI-OSA", GeoNames' spellings ("Ilesha East" for "Ilesa East"), and a
// trailing "LGA", "Local Government Area" or "Area Council".
func (g *Gazetteer) NormalizeLGA(stateName, name string) (string, bool) {
	s := g.state(stateName)
	if s == nil {
		return "", false
	}
	if l := s.lga(name); l != nil {
		return l.name, true
	}
	return "", false
}

// StatesWithLGA lists the states that have an LGA of this name (several
// share one: Surulere is in Lagos and Oyo), in alphabetical order.
func (g *Gazetteer) StatesWithLGA(name string) []string {
	k := key.Of(name)
	list := g.lgaHome[k]
	if len(list) == 0 {
		list = g.lgaHome[trimLGA(k)]
	}
	out := make([]string, 0, len(list))
	for _, s := range g.states {
		if containsState(list, s) {
			out = append(out, s.name)
		}
	}
	return out
}

func (g *Gazetteer) state(name string) *state {
	k := key.Of(name)
	if s := g.byKey[k]; s != nil {
		return s
	}
	return g.byKey[key.TrimSuffixes(k, "state")]
}

func (s *state) lga(name string) *lga {
	k := key.Of(name)
	if l := s.byKey[k]; l != nil {
		return l
	}
	return s.byKey[trimLGA(k)]
}

// trimLGA drops what people append to an LGA's name.
func trimLGA(k string) string {
	return key.TrimSuffixes(k, "localgovernmentarea", "localgovernmentcouncil", "localgovernment", "areacouncil", "lga", "lgc")
}
