package verification

import (
	"cmp"
	"context"
	"slices"
)

// Coverage: where open live work is, against the active agents who can
// take it. An agent covering a state can be offered any of its addresses
// (one naming the LGA first, see offer), so an area's agents are the
// active agents covering its state; LGAAgents those naming the LGA too.

// AreaCount is open live work in one state and LGA.
type AreaCount struct {
	State, LGA    string
	Open, Waiting int
}

// AreaCoverage is one area's work and agents.
type AreaCoverage struct {
	Name          string
	Open, Waiting int
	// Agents can take the area's work; LGAAgents (LGAs only) name it.
	Agents, LGAAgents int
	LGAs              []AreaCoverage
}

// Uncovered reports open work that no active agent can take.
func (a AreaCoverage) Uncovered() bool { return a.Open > 0 && a.Agents == 0 }

// Coverage lists every state (all 37, for the map) with its LGAs that
// have open work: areas with open work and no agent first, then by open
// work, most first.
func (s *Service) Coverage(ctx context.Context) ([]AreaCoverage, error) {
	counts, err := s.store.OpenByArea(ctx)
	if err != nil {
		return nil, err
	}
	agents, err := s.store.Agents(ctx)
	if err != nil {
		return nil, err
	}
	active := slices.DeleteFunc(agents, func(a FieldAgent) bool { return !a.Active })
	return coverageOf(counts, active), nil
}

// coverageOf combines the counts with the agents. Names the gazetteer
// does not know (addresses stored before intake checks) stay as stored.
func coverageOf(counts []AreaCount, agents []FieldAgent) []AreaCoverage {
	inState, inLGA := reachOf(agents)
	byState := map[string]*AreaCoverage{}
	var states []*AreaCoverage
	add := func(name string) *AreaCoverage {
		if st, ok := byState[name]; ok {
			return st
		}
		st := &AreaCoverage{Name: name, Agents: inState[name]}
		byState[name] = st
		states = append(states, st)
		return st
	}
	for _, name := range places().States() {
		add(name)
	}
	for _, c := range counts {
		name := stateName(c.State)
		st := add(name)
		st.Open += c.Open
		st.Waiting += c.Waiting
		lga := c.LGA
		if n, ok := places().NormalizeLGA(name, lga); ok {
			lga = n
		}
		i := slices.IndexFunc(st.LGAs, func(l AreaCoverage) bool { return l.Name == lga })
		if i < 0 {
			st.LGAs = append(st.LGAs, AreaCoverage{Name: lga, Agents: st.Agents, LGAAgents: inLGA[name+"|"+lga]})
			i = len(st.LGAs) - 1
		}
		st.LGAs[i].Open += c.Open
		st.LGAs[i].Waiting += c.Waiting
	}
	out := make([]AreaCoverage, len(states))
	for i, st := range states {
		slices.SortFunc(st.LGAs, byNeed)
		out[i] = *st
	}
	slices.SortStableFunc(out, byNeed)
	return out
}

// reachOf counts the agents covering each state, and naming each LGA
// ("state|lga"), names normalised once per agent rather than once per
// area (Covers would normalise both sides for every pair).
func reachOf(agents []FieldAgent) (inState, inLGA map[string]int) {
	inState, inLGA = map[string]int{}, map[string]int{}
	for _, a := range agents {
		seen := map[string]bool{}
		for _, s := range a.States {
			name := stateName(s)
			if !seen[name] {
				seen[name] = true
				inState[name]++
			}
			for _, l := range a.LGAs {
				if n, ok := places().NormalizeLGA(name, l); ok && !seen[name+"|"+n] {
					seen[name+"|"+n] = true
					inLGA[name+"|"+n]++
				}
			}
		}
	}
	return inState, inLGA
}

// stateName is a state in the gazetteer's spelling, or as given.
func stateName(s string) string {
	if n, ok := places().NormalizeState(s); ok {
		return n
	}
	return s
}

// byNeed orders areas: open work and no agent first, then most open work
// (most waiting on a tie), then by name.
func byNeed(a, b AreaCoverage) int {
	if a.Uncovered() != b.Uncovered() {
		if a.Uncovered() {
			return -1
		}
		return 1
	}
	return cmp.Or(cmp.Compare(b.Open, a.Open), cmp.Compare(b.Waiting, a.Waiting), cmp.Compare(a.Name, b.Name))
}
