package gazetteer

import "testing"

// BenchmarkCheckAddress is the intake check of one address as the
// customer service runs it: normalise country, state and LGA, then find
// the expected location (target: under 50 µs).
func BenchmarkCheckAddress(b *testing.B) {
	g := Nigeria()
	in := Place{City: "Lekki", LGA: "ETI-OSA", State: "lagos state", Country: "NG"}
	b.ReportAllocs()
	for b.Loop() {
		out, probs := g.Check(in)
		if len(probs) > 0 {
			b.Fatal(probs)
		}
		if _, ok := g.ExpectedLocation(out.State, out.LGA, out.City); !ok {
			b.Fatal("no location")
		}
	}
}

// BenchmarkCheckMisspelt is the slower path: a misspelt state and an LGA
// of another state, with suggestions worked out.
func BenchmarkCheckMisspelt(b *testing.B) {
	g := Nigeria()
	for _, in := range []Place{
		{City: "Ikeja", State: "Lagoss", Country: "Nigeria"},
		{City: "Ikeja", LGA: "Ikeja", State: "Kano"},
	} {
		b.Run(in.State, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, probs := g.Check(in); len(probs) == 0 {
					b.Fatal("accepted")
				}
			}
		})
	}
}

// BenchmarkDecode is what the first use of Nigeria costs: decoding the
// embedded file and building the indexes.
func BenchmarkDecode(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := decode(nigeriaJSON); err != nil {
			b.Fatal(err)
		}
	}
}
