package verification

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
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
		{"please SANDBOX_FLAGGED", MagicFlagged},
		{"sandbox_reject", ""}, // magic values are upper case
		{"SANDBOX REJECT", ""},
	}
	for _, c := range cases {
		if got := scenario(c.notes); got != c.want {
			t.Errorf("scenario(%q) = %q; want %q", c.notes, got, c.want)
		}
	}
}

// Sandbox points fall near where the address should be (within the
// offset's 400 m box), the same each time for one address, and with
// SANDBOX_FLAGGED past the FAR_FROM_EXPECTED_LOCATION threshold of the
// expected location's precision.
func TestPointNearLandsNearTheExpectedLocation(t *testing.T) {
	const box = 0.0036 + 1e-6 // the offset's bound, plus rounding to 6 places
	cases := []Address{
		{City: "Ikeja", LGA: "Ikeja", State: "Lagos"},
		{City: "Somewhere unknown", LGA: "Eti Osa", State: "Lagos"},
		{State: "Kano"},
		{City: "Kaduna", State: "Kaduna"},
		{State: "FCT"},
	}
	for _, a := range cases {
		l, ok := ExpectedLocation(a)
		if !ok {
			t.Fatalf("no expected location for %+v", a)
		}
		for _, seed := range []string{"adr_1", "adr_2", "adr_019a2b3c4d5e6f708192a3b4c5d6e7f8", ""} {
			lat, lng := pointNear(a, seed, false)
			if math.Abs(lat-l.Latitude) > box || math.Abs(lng-l.Longitude) > box {
				t.Errorf("pointNear(%+v, %q) = %v,%v; expected location %+v", a, seed, lat, lng, l)
			}
			if lat2, lng2 := pointNear(a, seed, false); lat2 != lat || lng2 != lng {
				t.Errorf("pointNear(%+v, %q) is not deterministic", a, seed)
			}
			if r := math.Round(lat*1e6) / 1e6; r != lat {
				t.Errorf("latitude %v is not rounded to 6 places", lat)
			}
			lat, lng = pointNear(a, seed, true)
			if d := distance(l.Latitude, l.Longitude, lat, lng); d <= farFromExpected[l.Precision] {
				t.Errorf("flagged point for %+v is %.0f m from its expected location (%s), within the threshold", a, d, l.Precision)
			}
		}
	}
	// An address the gazetteer cannot place lands near Nigeria's centre.
	lat, lng := pointNear(Address{State: "Atlantis"}, "adr_1", false)
	if math.Abs(lat-9.0820) > box || math.Abs(lng-8.6753) > box {
		t.Errorf("pointNear(Atlantis) = %v,%v; want near Nigeria's centre", lat, lng)
	}
}

// Sandbox evidence differs between customers, stays the same for one,
// and SANDBOX_FLAGGED explains both of its flags.
func TestSandboxEvidenceVariesAndFlaggedExplainsItself(t *testing.T) {
	s := &Service{sandbox: Sandbox{Photos: map[string]int64{"building_front": 1, "street_view": 1}}}
	now := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	residents := map[string]bool{}
	for i := range 20 {
		j := Job{CustomerID: fmt.Sprintf("cus_%032d", i), AddressID: "adr_1", Address: Address{City: "Ikeja", LGA: "Ikeja", State: "Lagos"}}
		r, _ := s.evidence(j, now, false)
		again, _ := s.evidence(j, now, false)
		if r.Resident.Name != again.Resident.Name || r.Building.Type != again.Building.Type {
			t.Errorf("customer %d's evidence changed between two runs", i)
		}
		if len(r.Flags) != 0 {
			t.Errorf("an ordinary sandbox visit raised %v", r.Flags)
		}
		residents[r.Resident.Name] = true
	}
	if len(residents) < 4 {
		t.Errorf("20 customers met only %d different residents", len(residents))
	}
	j := Job{CustomerID: "cus_flagged", AddressID: "adr_1", Address: Address{City: "Ikeja", LGA: "Ikeja", State: "Lagos"}}
	r, _ := s.evidence(j, now, true)
	want := map[string]string{
		FlagFarFromExpected: "The visit was completed 17.",
		FlagPhotoReused:     "Photo 1 (building front) matches a photo submitted for another address.",
	}
	if len(r.Flags) != 2 || len(r.FlagDetails) != 2 || r.DistanceFromExpectedMeters == nil {
		t.Fatalf("flagged evidence: %v %+v", r.Flags, r.FlagDetails)
	}
	for _, d := range r.FlagDetails {
		if !strings.HasPrefix(d.Message, want[d.Code]) || d.Severity == "" {
			t.Errorf("%s: %q (%s)", d.Code, d.Message, d.Severity)
		}
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
