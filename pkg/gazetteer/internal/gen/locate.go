package main

import (
	"cmp"
	"slices"

	"github.com/kycfield/kyc/pkg/gazetteer/internal/extract"
	"github.com/kycfield/kyc/pkg/gazetteer/internal/key"
)

// locate sorts s's towns and gives each LGA and s a reference point.
//
// GeoNames' divisions carry no coordinates, so a point is a real town: for
// an LGA, its town of the same name (usually the headquarters it is named
// after), else its town nearest the mean of its towns, else a town of the
// state GeoNames places in no LGA but named like it; for a state, its
// town nearest the mean of all its towns. A point is therefore always a
// populated place on land, never the middle of a lagoon.
func locate(s *extract.State) {
	byName := func(a, b extract.Town) int { return cmp.Compare(a.Name, b.Name) }
	all := slices.Clone(s.Towns)
	slices.SortStableFunc(s.Towns, byName)
	for i := range s.LGAs {
		l := &s.LGAs[i]
		slices.SortStableFunc(l.Towns, byName)
		all = append(all, l.Towns...)
		if t, ok := namesake(l, l.Towns); ok {
			l.Lat, l.Lon = t.Lat, t.Lon
		} else if t, ok := namesake(l, s.Towns); ok {
			l.Lat, l.Lon = t.Lat, t.Lon
		} else if t, ok := medoid(l.Towns); ok {
			l.Lat, l.Lon = t.Lat, t.Lon
		}
	}
	if t, ok := medoid(all); ok {
		s.Lat, s.Lon = t.Lat, t.Lon
	}
}

// namesake is the town among towns named like l.
func namesake(l *extract.LGA, towns []extract.Town) (extract.Town, bool) {
	names := []string{key.Of(l.Name)}
	for _, a := range l.Aka {
		names = append(names, key.Of(a))
	}
	for _, t := range towns {
		if slices.Contains(names, key.Of(t.Name)) {
			return t, true
		}
	}
	return extract.Town{}, false
}

// medoid is the town nearest the mean position of towns.
func medoid(towns []extract.Town) (extract.Town, bool) {
	if len(towns) == 0 {
		return extract.Town{}, false
	}
	var lat, lon float64
	for _, t := range towns {
		lat += t.Lat
		lon += t.Lon
	}
	lat /= float64(len(towns))
	lon /= float64(len(towns))
	best, bestD := towns[0], -1.0
	for _, t := range towns {
		// Squared degrees are enough to rank towns this close to the equator.
		d := (t.Lat-lat)*(t.Lat-lat) + (t.Lon-lon)*(t.Lon-lon)
		if bestD < 0 || d < bestD {
			best, bestD = t, d
		}
	}
	return best, true
}
