package gazetteer

import (
	"cmp"
	"slices"
	"strings"

	"github.com/agnivade/levenshtein"

	"github.com/kycfield/kyc/pkg/gazetteer/internal/key"
)

// MaxSuggestions is the most names a suggestion list holds.
const MaxSuggestions = 3

// SuggestStates proposes up to MaxSuggestions states a name that is not a
// state may have meant, best first: states whose name is a few letters
// away ("Lagoss" → Lagos) or starts with it ("Akwa" → Akwa Ibom), then the
// states that have an LGA or town of that name ("Ikeja" → Lagos). Empty
// when nothing is close.
func (g *Gazetteer) SuggestStates(name string) []string {
	k := key.TrimSuffixes(key.Of(name), "state")
	var c candidates
	for alias, to := range stateAliases {
		c.consider(k, alias, to)
	}
	for _, s := range g.states {
		c.consider(k, key.Of(s.name), s.name)
	}
	for _, homes := range [][]*state{g.lgaHome[k], g.towns[k]} {
		for _, s := range homes {
			c.add(s.name, 3)
		}
	}
	return c.best()
}

// SuggestLGAs proposes up to MaxSuggestions LGAs of the state that name
// may have meant, best first; empty when the state is unknown or nothing
// is close. For an LGA of another state, see StatesWithLGA.
func (g *Gazetteer) SuggestLGAs(stateName, name string) []string {
	s := g.state(stateName)
	if s == nil {
		return nil
	}
	k := trimLGA(key.Of(name))
	var c candidates
	for lk, l := range s.byKey {
		c.consider(k, lk, l.name)
	}
	// A town's name is often given for its LGA.
	for _, t := range s.towns[k] {
		if t.lga != nil {
			c.add(t.lga.name, 3)
		}
	}
	return c.best()
}

// candidates keeps the best score seen for each name.
type candidates map[string]int

// consider scores the name behind candidate key ck against the typed key
// k: a prefix either way (of 3 letters or more) scores 1, otherwise up to
// two edits (at most a third of the shorter key) score by the edits.
func (c *candidates) consider(k, ck, name string) {
	if len(k) < 2 || ck == "" {
		return
	}
	short := min(len(k), len(ck))
	switch {
	case short >= 3 && (strings.HasPrefix(ck, k) || strings.HasPrefix(k, ck)):
		c.add(name, 1)
	default:
		if d := levenshtein.ComputeDistance(k, ck); d <= 3 && d*3 <= short+2 {
			c.add(name, d)
		}
	}
}

func (c *candidates) add(name string, score int) {
	if *c == nil {
		*c = candidates{}
	}
	if old, ok := (*c)[name]; !ok || score < old {
		(*c)[name] = score
	}
}

func (c candidates) best() []string {
	names := make([]string, 0, len(c))
	for n := range c {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int {
		return cmp.Or(cmp.Compare(c[a], c[b]), cmp.Compare(a, b))
	})
	return names[:min(len(names), MaxSuggestions)]
}
