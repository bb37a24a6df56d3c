package gazetteer

import (
	"math"
	"slices"
	"testing"
)

func TestNormalizeStateVariants(t *testing.T) {
	g := Nigeria()
	for _, tc := range []struct{ in, want string }{
		{"Lagos State", "Lagos"}, {"lagos", "Lagos"}, {"lagos state", "Lagos"}, {"LAGOS STATE", "Lagos"},
		{"FCT", "FCT"}, {"fct", "FCT"}, {"F.C.T.", "FCT"}, {"Abuja", "FCT"}, {"Federal Capital Territory", "FCT"},
		{"FCT - Abuja", "FCT"}, {"FCT Abuja", "FCT"}, {"Akwa-Ibom", "Akwa Ibom"}, {"akwaibom", "Akwa Ibom"},
		{"Cross River State", "Cross River"}, {"Rivers State", "Rivers"}, {"Ọ̀yọ́", "Oyo"}, {" Kano\t", "Kano"},
		{"Lagoss", ""}, {"Atlantis", ""}, {"", ""}, {"State", ""}, {"Nassarawa", ""},
	} {
		got, ok := g.NormalizeState(tc.in)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("NormalizeState(%q) = %q, %v; want %q", tc.in, got, ok, tc.want)
		}
	}
}

func TestNormalizeLGAVariants(t *testing.T) {
	g := Nigeria()
	for _, tc := range []struct{ state, in, want string }{
		{"Lagos", "Eti Osa", "Eti Osa"}, {"Lagos", "Eti-Osa", "Eti Osa"}, {"lagos state", "ETI-OSA", "Eti Osa"},
		{"Lagos", "Ifako/Ijaye", "Ifako-Ijaiye"}, {"Lagos", "ikeja lga", "Ikeja"},
		{"Osun", "Ilesha East", "Ilesa East"}, {"Ogun", "Egbado North", "Yewa North"}, {"Kebbi", "Yauri Local Government Area", "Yauri"},
		{"Abuja", "AMAC", "Abuja Municipal Area Council"}, {"FCT", "Abuja Municipal", "Abuja Municipal Area Council"},
		{"FCT", "Bwari Area Council", "Bwari"}, {"Oyo", "Surulere", "Surulere"}, {"Lagos", "Surulere", "Surulere"},
		{"Kano", "Ikeja", ""}, {"Lagos", "Lekki", ""}, {"Atlantis", "Ikeja", ""},
	} {
		got, ok := g.NormalizeLGA(tc.state, tc.in)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("NormalizeLGA(%q, %q) = %q, %v; want %q", tc.state, tc.in, got, ok, tc.want)
		}
	}
}

func TestCheck(t *testing.T) {
	g := Nigeria()
	for _, tc := range []struct {
		name  string
		in    Place
		want  Place
		probs []Problem
	}{
		{"canonical", Place{"Ikeja", "Ikeja", "Lagos", "Nigeria"}, Place{"Ikeja", "Ikeja", "Lagos", "Nigeria"}, nil},
		{"variants", Place{"Lekki", "ETI-OSA", "lagos state", "ng"}, Place{"Lekki", "Eti Osa", "Lagos", "Nigeria"}, nil},
		{"abuja", Place{"Garki", "", "Abuja", "NGA"}, Place{"Garki", "", "FCT", "Nigeria"}, nil},
		{"no country or lga", Place{State: "Kano"}, Place{State: "Kano"}, nil},
		{"misspelt state", Place{State: "Lagoss"}, Place{State: "Lagoss"},
			[]Problem{{Field: "state", Suggestions: []string{"Lagos"}}}},
		{"state beginning", Place{State: "Akwa"}, Place{State: "Akwa"},
			[]Problem{{Field: "state", Suggestions: []string{"Akwa Ibom"}}}},
		{"lga given as state", Place{State: "Ikeja"}, Place{State: "Ikeja"},
			[]Problem{{Field: "state", Suggestions: []string{"Lagos"}}}},
		{"nothing close", Place{State: "Atlantis"}, Place{State: "Atlantis"},
			[]Problem{{Field: "state", Suggestions: nil}}},
		{"lga of another state", Place{LGA: "Ikeja", State: "Kano"}, Place{LGA: "Ikeja", State: "Kano"},
			[]Problem{{Field: "state", Suggestions: []string{"Lagos"}}, {Field: "lga"}}},
		{"lga in two other states", Place{LGA: "Surulere", State: "Kano"}, Place{LGA: "Surulere", State: "Kano"},
			[]Problem{{Field: "state", Suggestions: []string{"Lagos", "Oyo"}}, {Field: "lga"}}},
		{"misspelt lga", Place{LGA: "Eti-Osaa", State: "Lagos"}, Place{LGA: "Eti-Osaa", State: "Lagos"},
			[]Problem{{Field: "lga", Suggestions: []string{"Eti Osa"}}}},
		{"town given as lga", Place{LGA: "Lekki", State: "Lagos"}, Place{LGA: "Lekki", State: "Lagos"},
			[]Problem{{Field: "lga", Suggestions: []string{"Eti Osa"}}}},
		{"foreign country", Place{State: "Lagos", Country: "Ghana"}, Place{State: "Lagos", Country: "Ghana"},
			[]Problem{{Field: "country"}}},
		{"every field wrong", Place{LGA: "Nowhere", State: "Lagoss", Country: "UK"}, Place{LGA: "Nowhere", State: "Lagoss", Country: "UK"},
			[]Problem{{Field: "country"}, {Field: "state", Suggestions: []string{"Lagos"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, probs := g.Check(tc.in)
			if got != tc.want {
				t.Errorf("Check(%+v) = %+v, want %+v", tc.in, got, tc.want)
			}
			if len(probs) != len(tc.probs) {
				t.Fatalf("problems = %+v, want %d", probs, len(tc.probs))
			}
			for i, p := range probs {
				if p.Field != tc.probs[i].Field || p.Message == "" {
					t.Errorf("problem %d = %+v, want field %s and a message", i, p, tc.probs[i].Field)
				}
				if w := tc.probs[i].Suggestions; w != nil && !slices.Equal(p.Suggestions[:min(len(w), len(p.Suggestions))], w) {
					t.Errorf("problem %d suggestions = %q, want %q first", i, p.Suggestions, w)
				}
				if len(p.Suggestions) > MaxSuggestions {
					t.Errorf("problem %d has %d suggestions", i, len(p.Suggestions))
				}
			}
		})
	}
}

func TestSuggestionsForNearMisses(t *testing.T) {
	g := Nigeria()
	for _, tc := range []struct{ in, want string }{
		{"Lagoss", "Lagos"}, {"Lags", "Lagos"}, {"Kadna", "Kaduna"}, {"Anambara", "Anambra"}, {"Nassarawa", "Nasarawa"},
		{"Enuguu", "Enugu"}, {"Plataeu", "Plateau"}, {"Zamfra", "Zamfara"}, {"Porthacourt", ""},
		{"Port Harcourt", "Rivers"}, {"Victoria Island", ""}, {"Ibadan", "Oyo"},
	} {
		got := g.SuggestStates(tc.in)
		if tc.want == "" {
			if len(got) > 0 {
				t.Errorf("SuggestStates(%q) = %q, want none", tc.in, got)
			}
			continue
		}
		if len(got) == 0 || got[0] != tc.want {
			t.Errorf("SuggestStates(%q) = %q, want %q first", tc.in, got, tc.want)
		}
	}
}

func TestExpectedLocation(t *testing.T) {
	g := Nigeria()
	lagos, _ := g.StateCentre("Lagos")
	for _, tc := range []struct {
		state, lga, city string
		want             Precision
		near             Point // within 1 km when set
	}{
		{"Lagos", "Ikeja", "Ikeja", PrecisionTown, Point{6.59651, 3.34205}},
		{"lagos state", "", "ikeja", PrecisionTown, Point{6.59651, 3.34205}},
		{"Lagos", "Eti-Osa", "Lekki", PrecisionTown, Point{}},
		{"Lagos", "Eti-Osa", "Victoria Island", PrecisionLGA, Point{}},
		// GeoNames' town "Eti-Osa" lies in Oshodi-Isolo: the LGA given wins.
		{"Lagos", "Eti-Osa", "Eti-Osa", PrecisionLGA, Point{}},
		{"Lagos", "", "Surulere", PrecisionTown, Point{}},
		{"Lagos", "", "Lagos Island", PrecisionTown, Point{}},
		{"Lagos", "Lagos Island", "Marina", PrecisionLGA, Point{}},
		{"Lagos", "", "Somewhere New", PrecisionState, lagos},
		{"Abuja", "", "Abuja", PrecisionTown, Point{9.05785, 7.49508}},
		{"FCT", "AMAC", "Garki", PrecisionLGA, Point{9.05785, 7.49508}},
		{"Oyo", "Surulere", "", PrecisionLGA, Point{}},
	} {
		got, ok := g.ExpectedLocation(tc.state, tc.lga, tc.city)
		if !ok || got.Precision != tc.want || !inNigeria(got.Point()) {
			t.Errorf("ExpectedLocation(%q, %q, %q) = %+v, %v; want %s", tc.state, tc.lga, tc.city, got, ok, tc.want)
		}
		if tc.near != (Point{}) && Distance(got.Point(), tc.near) > 1000 {
			t.Errorf("ExpectedLocation(%q, %q, %q) = %+v, want near %+v", tc.state, tc.lga, tc.city, got, tc.near)
		}
	}
	if oyo, _ := g.ExpectedLocation("Oyo", "Surulere", ""); Distance(oyo.Point(), lagos) < 50_000 {
		t.Errorf("Oyo's Surulere at %+v is near Lagos", oyo)
	}
	if _, ok := g.ExpectedLocation("Atlantis", "", "Atlantis"); ok {
		t.Error("ExpectedLocation found Atlantis")
	}
}

func TestDistance(t *testing.T) {
	// One degree of latitude is about 111.2 km; Ikeja to Abuja about 525 km.
	if d := Distance(Point{6, 3}, Point{7, 3}); math.Abs(d-111_195) > 100 {
		t.Errorf("one degree = %.0f m", d)
	}
	if d := Distance(Point{6.59651, 3.34205}, Point{9.05785, 7.49508}); d < 515_000 || d > 540_000 {
		t.Errorf("Ikeja-Abuja = %.0f m", d)
	}
	if d := Distance(Point{9, 7}, Point{9, 7}); d != 0 {
		t.Errorf("a point from itself = %v", d)
	}
}

// The gazetteer is shared by every request: checks and suggestions from
// many goroutines at once must not race (run with -race).
func TestConcurrentUse(t *testing.T) {
	g := Nigeria()
	done := make(chan struct{})
	for i := range 8 {
		go func() {
			defer func() { done <- struct{}{} }()
			for range 200 {
				g.Check(Place{LGA: "Ikeja", State: []string{"Kano", "Lagoss", "Ikeja", "Surulere"}[i%4]})
				g.SuggestStates("Surulere")
				g.ExpectedLocation("Lagos", "Eti-Osa", "Lekki")
			}
		}()
	}
	for range 8 {
		<-done
	}
}
