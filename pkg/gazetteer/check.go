package gazetteer

import (
	"fmt"
	"strings"
)

// Place is the part of an address the gazetteer checks.
type Place struct {
	City, LGA, State, Country string
}

// Problem is one field of a Place that names no Nigerian place.
type Problem struct {
	// Field is "state", "lga" or "country".
	Field   string
	Message string
	// Suggestions are up to MaxSuggestions values for Field, best first.
	Suggestions []string
}

// Check normalises p's state, LGA and country, or says what is wrong with
// each, one Problem per field:
//   - country, when given, must be Nigeria (see IsNigeria); it becomes "Nigeria";
//   - state, when given, must be a state or the FCT (see NormalizeState);
//   - lga, when given with a known state, must be one of its LGAs (see
//     NormalizeLGA). An LGA of another state is a problem of both fields:
//     the state's suggestions name the states that have it.
//
// Empty fields are left to the caller, which knows which it requires. City
// is returned as given.
func (g *Gazetteer) Check(p Place) (Place, []Problem) {
	var probs []Problem
	if strings.TrimSpace(p.Country) != "" {
		if IsNigeria(p.Country) {
			p.Country = Country
		} else {
			probs = append(probs, Problem{Field: "country", Message: "must be Nigeria: only Nigerian addresses can be verified"})
		}
	}
	if strings.TrimSpace(p.State) == "" {
		return p, probs
	}
	s := g.state(p.State)
	if s == nil {
		return p, append(probs, Problem{Field: "state", Message: "is not one of Nigeria's 36 states or the FCT", Suggestions: g.SuggestStates(p.State)})
	}
	p.State = s.name
	if strings.TrimSpace(p.LGA) == "" {
		return p, probs
	}
	if l := s.lga(p.LGA); l != nil {
		p.LGA = l.name
		return p, probs
	}
	msg := fmt.Sprintf("is not a local government area of %s", s.name)
	if homes := g.StatesWithLGA(p.LGA); len(homes) > 0 {
		msg += fmt.Sprintf(" (it is in %s)", strings.Join(homes, " and "))
		probs = append(probs, Problem{
			Field:       "state",
			Message:     fmt.Sprintf("has no local government area %q; did you mean %s?", strings.TrimSpace(p.LGA), strings.Join(homes, " or ")),
			Suggestions: homes[:min(len(homes), MaxSuggestions)],
		})
	}
	return p, append(probs, Problem{Field: "lga", Message: msg, Suggestions: g.SuggestLGAs(s.name, p.LGA)})
}
