package verification

import (
	"strings"
	"testing"
	"time"
)

var at0 = time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)

// flagged runs one rule into a fresh set and returns its details.
func flagged(rule func(*flagSet)) []FlagDetail {
	var f flagSet
	rule(&f)
	return f.details
}

// only fails unless ds is exactly one flag of code whose message holds
// every want (or no flag when code is "").
func only(t *testing.T, name string, ds []FlagDetail, code string, want ...string) {
	t.Helper()
	if code == "" {
		if len(ds) != 0 {
			t.Errorf("%s: flagged %+v", name, ds)
		}
		return
	}
	if len(ds) != 1 || ds[0].Code != code || ds[0].Severity != FlagSeverity[code] || ds[0].Severity == "" {
		t.Errorf("%s: got %+v, want one %s", name, ds, code)
		return
	}
	for _, w := range want {
		if !strings.Contains(ds[0].Message, w) {
			t.Errorf("%s: %q lacks %q", name, ds[0].Message, w)
		}
	}
}

func TestShortVisit(t *testing.T) {
	for _, tc := range []struct {
		name  string
		took  time.Duration
		code  string
		words string
	}{
		{"90 seconds", 90 * time.Second, FlagShortVisit, "lasted 1 min 30 s"},
		{"a moment", 400 * time.Millisecond, FlagShortVisit, "lasted 0 s"},
		{"just under 3 minutes", minVisit - time.Millisecond, FlagShortVisit, "under 3 min"},
		{"exactly 3 minutes", minVisit, "", ""},
		{"an hour", time.Hour, "", ""},
	} {
		only(t, tc.name, flagged(func(f *flagSet) { shortVisit(at0, at0.Add(tc.took), f) }), tc.code, tc.words)
	}
}

func TestImpossibleTravel(t *testing.T) {
	// Ilorin to a point 300 km east along the parallel.
	from := Fix{Kind: FixCheckIn, Point: Point{Latitude: 8.496612, Longitude: 4.542131, Accuracy: 9}, At: at0}
	east := func(km float64) Point {
		return Point{Latitude: 8.496612, Longitude: 4.542131 + km/(111.32*0.98903), Accuracy: 9} // cos(8.5°)
	}
	d300 := distance(from.Latitude, from.Longitude, east(300).Latitude, east(300).Longitude) // about 300 km
	at150 := time.Duration(d300 / 1000 / maxSpeed * float64(time.Hour))
	for _, tc := range []struct {
		name  string
		to    Point
		after time.Duration
		kind  string
		code  string
		words []string
	}{
		{"300 km within the hour", east(300), 40 * time.Minute, FixCheckIn, FlagImpossibleTravel, []string{"299.7 km", "449.5 km/h", "40 min earlier", "previous check-in"}},
		{"300 km after a completion", east(300), time.Hour, FixCompletion, FlagImpossibleTravel, []string{"previous completed visit"}},
		{"300 km just over 150 km/h", east(300), at150 - time.Second, FixCheckIn, FlagImpossibleTravel, nil},
		{"300 km at 150 km/h", east(300), at150 + time.Millisecond, FixCheckIn, "", nil},
		{"300 km in 3 hours", east(300), 3 * time.Hour, FixCheckIn, "", nil},
		{"300 km in no time", east(300), 0, FixCheckIn, FlagImpossibleTravel, []string{"at once"}},
		{"under 1 km at once (GPS wander)", east(0.99), 0, FixCheckIn, "", nil},
		{"just over 1 km at once", east(1.01), time.Second, FixCheckIn, FlagImpossibleTravel, []string{"1.0 km"}},
	} {
		f := from
		f.Kind = tc.kind
		only(t, tc.name, flagged(func(fs *flagSet) { impossibleTravel(f, tc.to, at0.Add(tc.after), fs) }), tc.code, tc.words...)
	}
}

func TestSuspectFix(t *testing.T) {
	other := &Fix{AddressID: "adr_other", Point: Point{Latitude: 6.428137, Longitude: 3.421912, Accuracy: 8}, At: at0}
	for _, tc := range []struct {
		name      string
		p         Point
		elsewhere *Fix
		code      string
		words     string
	}{
		{"a phone's fix", Point{Latitude: 6.601838, Longitude: 3.351486, Accuracy: 9}, other, "", ""},
		{"accuracy 0", Point{Latitude: 6.601838, Longitude: 3.351486, Accuracy: 0}, nil, FlagSuspectLocation, "accuracy of 0 m"},
		{"a tiny accuracy is real", Point{Latitude: 6.601838, Longitude: 3.351486, Accuracy: 0.1}, nil, "", ""},
		{"4 decimals", Point{Latitude: 6.6018, Longitude: 3.3514, Accuracy: 9}, nil, FlagSuspectLocation, "(6.6018, 3.3514) has 4 or fewer decimals"},
		{"whole degrees", Point{Latitude: 7, Longitude: 3, Accuracy: 9}, nil, FlagSuspectLocation, "(7, 3)"},
		{"5 decimals", Point{Latitude: 6.60183, Longitude: 3.35148, Accuracy: 9}, nil, "", ""},
		{"one coordinate rounded", Point{Latitude: 6.6018, Longitude: 3.351486, Accuracy: 9}, nil, "", ""},
		{"the fix at another address", Point{Latitude: 6.428137, Longitude: 3.421912, Accuracy: 5}, other, FlagSuspectLocation, "identical to the agent's fix at another address at 2026-11-26 10:00 WAT"},
		{"a metre from it", Point{Latitude: 6.428146, Longitude: 3.421912, Accuracy: 5}, other, "", ""},
	} {
		only(t, tc.name, flagged(func(f *flagSet) { suspectFix("check-in", tc.p, tc.elsewhere, f) }), tc.code, tc.words)
	}
}

func TestCheckInFlagsCombine(t *testing.T) {
	last := &Fix{AddressID: "adr_a", Kind: FixCompletion, Point: Point{Latitude: 6.428137, Longitude: 3.421912, Accuracy: 8}, At: at0}
	ds := checkInFlags(Point{Latitude: 9.0765, Longitude: 7.3986, Accuracy: 0}, at0.Add(30*time.Minute), last, last)
	var codes []string
	for _, d := range ds {
		codes = append(codes, d.Code)
	}
	if strings.Join(codes, ",") != "SUSPECT_LOCATION,SUSPECT_LOCATION,IMPOSSIBLE_TRAVEL" {
		t.Fatalf("Lagos to Abuja in 30 minutes with a mock fix: %+v", ds)
	}
}

func TestEvidenceFlagsExplainEveryFlag(t *testing.T) {
	lat, lng := 6.601838+0.155, 3.351486 // about 17.2 km north
	taken := at0.Add(-2 * time.Hour)
	j := Job{Address: Address{State: "Lagos"}, Visit: &CheckInRecord{Point: Point{Latitude: 6.601838, Longitude: 3.351486, Accuracy: 80}, At: at0,
		Flags: []FlagDetail{{Code: FlagImpossibleTravel, Severity: SeverityCritical, Message: "Checked in ..."}}},
		Photos: []Photo{{ID: "pho_old", Tag: "gate"}, {ID: "pho_1", Tag: "building_front", Exif: &Exif{Latitude: &lat, Longitude: &lng, Taken: &taken}},
			{ID: "pho_2", Tag: "street_view", Reused: true, Device: &Point{Latitude: 6.601838, Longitude: 3.351486}}, {ID: "pho_3", Tag: "house_number"}}}
	var r Result
	evidenceFlags(j, Point{Latitude: 6.601838, Longitude: 3.351486, Accuracy: 60}, j.Photos[1:], at0.Add(90*time.Second),
		visitEvidence{timedVisit: true}, &r)
	want := map[string]string{
		FlagImpossibleTravel:   "Checked in",
		FlagCheckInLowAccuracy: "The check-in fix was accurate to only 80 m (worse than 50 m).",
		FlagShortVisit:         "The visit lasted 1 min 30 s from check-in to completion (under 3 min).",
		FlagLowAccuracy:        "The completion fix was accurate to only 60 m (worse than 50 m).",
		FlagPhotoFar:           "Photo 2 (building front) was taken 17.2 km from where the visit was completed (by the position in the photo file).",
		FlagPhotoTime:          "Photo 2 (building front) was taken at 2026-11-26 08:00 WAT, 2 h before the check-in.",
		FlagPhotoReused:        "Photo 3 (street view) matches a photo submitted for another address.",
		FlagPhotoWithoutGPS:    "Photo 4 (house number) has no position: neither the photo file nor the phone recorded one.",
	}
	if len(r.Flags) != len(want) || len(r.FlagDetails) != len(want) {
		t.Fatalf("flags %v, details %+v", r.Flags, r.FlagDetails)
	}
	for i, d := range r.FlagDetails {
		if r.Flags[i] != d.Code || !strings.HasPrefix(d.Message, want[d.Code]) || d.Severity != FlagSeverity[d.Code] {
			t.Errorf("%s: %+v, want %q", r.Flags[i], d, want[d.Code])
		}
	}
}

func TestEveryFlagHasASeverity(t *testing.T) {
	for code, sev := range FlagSeverity {
		if sev != SeverityInfo && sev != SeverityWarning && sev != SeverityCritical {
			t.Errorf("%s: severity %q", code, sev)
		}
	}
}

func TestSpanAndMeters(t *testing.T) {
	for d, want := range map[time.Duration]string{0: "0 s", 59 * time.Second: "59 s", time.Minute: "1 min", 90 * time.Second: "1 min 30 s",
		time.Hour: "1 h", 125 * time.Minute: "2 h 5 min", -40 * time.Minute: "40 min"} {
		if got := span(d); got != want {
			t.Errorf("span(%v) = %q, want %q", d, got, want)
		}
	}
	for m, want := range map[float64]string{0: "0 m", 412.4: "412 m", 999.4: "999 m", 1000: "1.0 km", 17_249: "17.2 km"} {
		if got := meters(m); got != want {
			t.Errorf("meters(%v) = %q, want %q", m, got, want)
		}
	}
}
