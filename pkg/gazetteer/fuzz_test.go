package gazetteer

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kycfield/kyc/pkg/gazetteer/internal/key"
)

// FuzzCheck holds Check to its promises for any input: no panic, at most
// MaxSuggestions suggestions, canonical names out, a second pass changing
// nothing, and suggestions that are themselves valid.
func FuzzCheck(f *testing.F) {
	for _, s := range [][4]string{
		{"Ikeja", "Ikeja", "Lagos", "Nigeria"}, {"", "ETI-OSA", "lagos state", "ng"}, {"", "Ikeja", "Kano", ""},
		{"", "", "Lagoss", ""}, {"x", "Surulere", "Ọ̀yọ́", "NGA"}, {"", "lga", "state", "\xff"},
	} {
		f.Add(s[0], s[1], s[2], s[3])
	}
	g := Nigeria()
	f.Fuzz(func(t *testing.T, city, lga, state, country string) {
		in := Place{city, lga, state, country}
		out, probs := g.Check(in)
		fields := map[string]bool{}
		for _, p := range probs {
			if fields[p.Field] || p.Message == "" || len(p.Suggestions) > MaxSuggestions {
				t.Fatalf("Check(%+v) problems %+v", in, probs)
			}
			fields[p.Field] = true
			for _, s := range p.Suggestions {
				if _, ok := g.NormalizeState(s); p.Field == "state" && !ok {
					t.Fatalf("suggested state %q is not a state", s)
				}
				if _, ok := g.NormalizeLGA(out.State, s); p.Field == "lga" && !ok {
					t.Fatalf("suggested LGA %q is not in %s", s, out.State)
				}
			}
		}
		if len(probs) > 0 {
			return
		}
		again, probs2 := g.Check(out)
		if again != out || len(probs2) > 0 {
			t.Fatalf("Check(%+v) = %+v, then %+v %+v", in, out, again, probs2)
		}
		if strings.TrimSpace(out.State) != "" {
			if _, ok := g.ExpectedLocation(out.State, out.LGA, out.City); !ok {
				t.Fatalf("no expected location for %+v", out)
			}
		}
	})
}

// FuzzKey holds the folding to being idempotent and free of separators.
func FuzzKey(f *testing.F) {
	for _, s := range []string{"Eti-Osa", "ETI OSA", "Ọ̀yọ́", "Mai'Adua", "\xff\xfe", "Ābūjā"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k := key.Of(s)
		if key.Of(k) != k || !utf8.ValidString(k) {
			t.Fatalf("key.Of(%q) = %q, not stable", s, k)
		}
		for _, r := range k {
			if r == ' ' || r == '-' || r == '/' || r == '\'' {
				t.Fatalf("key.Of(%q) = %q keeps %q", s, k, r)
			}
		}
	})
}
