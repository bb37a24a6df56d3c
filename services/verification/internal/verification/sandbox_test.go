package verification

import (
	"math"
	"testing"
)

func TestScenario(t *testing.T) {
	cases := []struct{ notes, want string }{
		{"", ""},
		{"Blue gate, second house", ""},
		{"SANDBOX_REJECT", MagicReject},
		{"Blue gate. SANDBOX_REJECT", MagicReject},
		// SANDBOX_REJECT is a prefix of SANDBOX_REJECT_RESIDENT: the
		// longer one must win wherever it appears.
		{"SANDBOX_REJECT_RESIDENT", MagicRejectResident},
		{"call first SANDBOX_REJECT_RESIDENT please", MagicRejectResident},
		{"SANDBOX_NO_ACCESS", MagicNoAccess},
		{"SANDBOX_STALL", MagicStall},
		{"sandbox_reject", ""}, // magic values are upper case
		{"SANDBOX REJECT", ""},
	}
	for _, c := range cases {
		if got := scenario(c.notes); got != c.want {
			t.Errorf("scenario(%q) = %q; want %q", c.notes, got, c.want)
		}
	}
}

func TestPointInLandsInItsState(t *testing.T) {
	const box = 0.018 + 1e-6 // the offset's bound, plus rounding to 6 places
	seeds := []string{"adr_1", "adr_2", "adr_019a2b3c4d5e6f708192a3b4c5d6e7f8", ""}
	for state, c := range stateCentres {
		for _, seed := range seeds {
			lat, lng := pointIn(state, seed)
			if math.Abs(lat-c[0]) > box || math.Abs(lng-c[1]) > box {
				t.Errorf("pointIn(%q, %q) = %v,%v; centre %v", state, seed, lat, lng, c)
			}
			if lat2, lng2 := pointIn(state, seed); lat2 != lat || lng2 != lng {
				t.Errorf("pointIn(%q, %q) is not deterministic", state, seed)
			}
			if r := math.Round(lat*1e6) / 1e6; r != lat {
				t.Errorf("latitude %v is not rounded to 6 places", lat)
			}
		}
	}
	// Different addresses in one state get different points.
	a1, b1 := pointIn("Lagos", "adr_1")
	a2, b2 := pointIn("Lagos", "adr_2")
	if a1 == a2 && b1 == b2 {
		t.Error("two seeds, one point")
	}
	// The spellings clients use reach the same centre.
	for _, tc := range []struct{ in, key string }{
		{"Lagos", "lagos"}, {" lagos state ", "lagos"}, {"Enugu State", "enugu"}, {"FCT", "fct"}, {"Abuja", "fct"},
		{"Federal Capital Territory", "fct"}, {"FCT - Abuja", "fct"}, {"Cross-River", "cross river"},
		{"Akwa-Ibom", "akwa ibom"}, {"AKWA IBOM", "akwa ibom"},
	} {
		lat, lng := pointIn(tc.in, "adr_1")
		c := stateCentres[tc.key]
		if math.Abs(lat-c[0]) > box || math.Abs(lng-c[1]) > box {
			t.Errorf("pointIn(%q) = %v,%v; want near %s %v", tc.in, lat, lng, tc.key, c)
		}
	}
	// Unknown states fall back to Nigeria's centre.
	for _, s := range []string{"", "Atlantis", "Greater London"} {
		lat, lng := pointIn(s, "adr_1")
		if math.Abs(lat-9.0820) > box || math.Abs(lng-8.6753) > box {
			t.Errorf("pointIn(%q) = %v,%v; want near Nigeria's centre", s, lat, lng)
		}
	}
	if len(stateCentres) != 37 {
		t.Errorf("%d state centres; want the 36 states and the FCT", len(stateCentres))
	}
}

func TestOneLine(t *testing.T) {
	cases := []struct {
		a    Address
		want string
	}{
		{Address{StreetNumber: "12", StreetName: "Adeola Odeku Street", City: "Victoria Island", LGA: "Eti-Osa", State: "Lagos", Country: "Nigeria"},
			"12 Adeola Odeku Street, Victoria Island, Eti-Osa, Lagos, Nigeria"},
		{Address{StreetName: "Aminu Kano Crescent", City: "Wuse II", State: "FCT"}, "Aminu Kano Crescent, Wuse II, FCT"},
		// Label, landmark and notes are not part of the address line.
		{Address{Label: "Home", StreetName: "Ogui Road", Landmark: "Near the bank", City: "Enugu", State: "Enugu", Notes: "Blue gate"},
			"Ogui Road, Enugu, Enugu"},
		{Address{StreetNumber: "4"}, "4"},
		{Address{}, ""},
	}
	for _, c := range cases {
		if got := OneLine(c.a); got != c.want {
			t.Errorf("OneLine(%+v) = %q; want %q", c.a, got, c.want)
		}
	}
}
