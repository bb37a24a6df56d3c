package gazetteer

import (
	"math"

	"github.com/kycfield/kyc/pkg/gazetteer/internal/key"
)

// Precision says what an expected location stands for.
type Precision string

// Precisions, finest first.
const (
	// PrecisionTown is a GeoNames town of the address's city.
	PrecisionTown Precision = "TOWN"
	// PrecisionLGA is the reference point of the address's LGA.
	PrecisionLGA Precision = "LGA"
	// PrecisionState is the reference point of the address's state.
	PrecisionState Precision = "STATE"
)

// Location is where an address is expected to be, and how precisely.
type Location struct {
	Latitude  float64   `json:"latitude"`
	Longitude float64   `json:"longitude"`
	Precision Precision `json:"precision"`
}

// Point returns the location's coordinates.
func (l Location) Point() Point { return Point{l.Latitude, l.Longitude} }

// ExpectedLocation is the best guess of where an address is, from the
// finest name that matches:
//   - TOWN: a town of the state named like city (when lga is one of the
//     state's LGAs, a town in that LGA or in none);
//   - LGA: lga's reference point, or that of an LGA named like city;
//   - STATE: the state's reference point (see StateCentre).
//
// ok is false only when stateName is not a state. Names are normalised as
// NormalizeState and NormalizeLGA do.
func (g *Gazetteer) ExpectedLocation(stateName, lgaName, city string) (Location, bool) {
	s := g.state(stateName)
	if s == nil {
		return Location{}, false
	}
	var l *lga
	if lgaName != "" {
		l = s.lga(lgaName)
	}
	if city != "" {
		if p, ok := s.town(key.Of(city), l); ok {
			return Location{p.Latitude, p.Longitude, PrecisionTown}, true
		}
		if l == nil {
			l = s.lga(city)
		}
	}
	if l != nil && l.hasPos {
		return Location{l.point.Latitude, l.point.Longitude, PrecisionLGA}, true
	}
	return Location{s.centre.Latitude, s.centre.Longitude, PrecisionState}, true
}

// town finds a town by folded name. When the address names an LGA (l),
// only a town in it or in no known LGA counts: GeoNames has a town
// "Eti-Osa" in Oshodi-Isolo, and the LGA the lender gave wins.
func (s *state) town(k string, l *lga) (Point, bool) {
	var loose *town
	for i, t := range s.towns[k] {
		switch {
		case l != nil && t.lga == l:
			return t.point, true
		case loose == nil && (l == nil || t.lga == nil):
			loose = &s.towns[k][i]
		}
	}
	if loose != nil {
		return loose.point, true
	}
	return Point{}, false
}

// earthRadius is the mean Earth radius in metres (IUGG).
const earthRadius = 6_371_008.8

// Distance is the great-circle (haversine) distance between a and b in
// metres; on a sphere, so within about 0.5 % of the geodesic.
func Distance(a, b Point) float64 {
	rad := math.Pi / 180
	dLat := (b.Latitude - a.Latitude) * rad
	dLon := (b.Longitude - a.Longitude) * rad
	h := math.Sin(dLat/2)*math.Sin(dLat/2) +
		math.Cos(a.Latitude*rad)*math.Cos(b.Latitude*rad)*math.Sin(dLon/2)*math.Sin(dLon/2)
	return 2 * earthRadius * math.Asin(math.Sqrt(min(1, h)))
}
