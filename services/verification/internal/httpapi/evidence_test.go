package httpapi_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kycfield/kyc/pkg/exiftest"
	"github.com/kycfield/kyc/services/verification/internal/httpapi"
	"github.com/kycfield/kyc/services/verification/internal/verification"
)

// scene is a photo-like JPEG: a gradient and seeded blocks, so two seeds
// are two pictures; quality changes the file, not the picture.
func scene(t *testing.T, seed uint64, quality int) []byte {
	t.Helper()
	return exiftest.Scene(seed, 1, quality)
}

// visit checks in at `at`, uploads the photos, waits `took` on the
// service's clock and completes VERIFIED there; it returns the result.
func (f fixture) visit(t *testing.T, a agent, adr string, at map[string]any, took time.Duration, photos ...[]byte) verification.Result {
	t.Helper()
	expect(t, "check-in", f.do(t, a.call("POST", "/agent/v1/tasks/"+adr+"/check-in", "c-"+adr, at)), http.StatusOK, "")
	lat, lng := at["latitude"].(float64), at["longitude"].(float64)
	for i, p := range photos {
		expect(t, "photo", f.upload(t, a, adr, "p-"+adr+string(rune('a'+i)), p, "tag", verification.PhotoTags[i], "latitude",
			jsonNum(lat), "longitude", jsonNum(lng), "accuracy", "8"), http.StatusCreated, "")
	}
	f.clock.Advance(took)
	done := map[string]any{"outcome": "VERIFIED", "verifiedAddress": "12 Adeola Odeku Street", "latitude": lat, "longitude": lng, "accuracy": 9}
	expect(t, "complete", f.do(t, a.call("POST", "/agent/v1/tasks/"+adr+"/complete", "d-"+adr, done)), http.StatusOK, "")
	return f.result(t, adr)
}

func jsonNum(v float64) string { return formatFloat(v) }

// result reads an address's result as the events carry it.
func (f fixture) result(t *testing.T, adr string) verification.Result {
	t.Helper()
	var raw []byte
	if err := f.store.Pool().QueryRow(t.Context(), `SELECT result FROM jobs WHERE address_id = $1`, adr).Scan(&raw); err != nil {
		t.Fatal(err)
	}
	var r verification.Result
	if err := jsonUnmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

func codes(r verification.Result) string { return strings.Join(r.Flags, ",") }

func TestVisitTimingAndTravelFlags(t *testing.T) {
	t.Parallel()
	f := setup(t)
	a := f.newAgent(t, "Lagos", "Oyo")
	lagos := map[string]any{"latitude": 6.428137, "longitude": 3.421912, "accuracy": 9.0}
	ibadan := map[string]any{"latitude": 7.377535, "longitude": 3.947040, "accuracy": 9.0} // about 120 km from Lagos

	// A 90-second visit is short; the next check-in 120 km away 10
	// minutes later is impossible travel.
	r := f.visit(t, a, f.openLive(t, "Lagos"), lagos, 90*time.Second, scene(t, 1, 90), scene(t, 2, 90))
	if codes(r) != "SHORT_VISIT" || !strings.Contains(r.FlagDetails[0].Message, "lasted 1 min 30 s") {
		t.Fatalf("90-second visit: %+v", r)
	}
	f.clock.Advance(10 * time.Minute)
	r = f.visit(t, a, f.openLive(t, "Oyo"), ibadan, 3*time.Minute, scene(t, 3, 90), scene(t, 4, 90))
	if codes(r) != "IMPOSSIBLE_TRAVEL" || !strings.Contains(r.FlagDetails[0].Message, "10 min earlier") {
		t.Fatalf("Lagos to Ibadan in 10 minutes: %+v", r)
	}
	// Back to Lagos after 2 hours (about 60 km/h), visiting for 3 minutes
	// exactly: nothing.
	f.clock.Advance(2 * time.Hour)
	lagos2 := map[string]any{"latitude": 6.431245, "longitude": 3.425117, "accuracy": 9.0}
	if r = f.visit(t, a, f.openLive(t, "Lagos"), lagos2, 3*time.Minute, scene(t, 5, 90), scene(t, 6, 90)); len(r.Flags) != 0 {
		t.Fatalf("a proper visit: %+v", r)
	}
	// The same fix as at another address: suspect.
	f.clock.Advance(time.Hour)
	if r = f.visit(t, a, f.openLive(t, "Lagos"), lagos2, 5*time.Minute, scene(t, 7, 90), scene(t, 8, 90)); codes(r) != "SUSPECT_LOCATION" {
		t.Fatalf("a fix identical to the last address's: %+v", r)
	}
}

func TestPhotoReusedAcrossOrganizations(t *testing.T) {
	t.Parallel()
	f := setup(t)
	a := f.newAgent(t, "Lagos")
	at := map[string]any{"latitude": 6.428137, "longitude": 3.421912, "accuracy": 9.0}
	first := f.openLive(t, "Lagos") // each openLive is another organization
	f.visit(t, a, first, at, 5*time.Minute, scene(t, 1, 90), scene(t, 2, 90))

	// The same file, and the same picture re-encoded, for other lenders.
	f.clock.Advance(time.Hour)
	second := f.openLive(t, "Lagos")
	r := f.visit(t, a, second, map[string]any{"latitude": 6.428291, "longitude": 3.421874, "accuracy": 9.0}, 5*time.Minute,
		scene(t, 1, 90), scene(t, 9, 90))
	if codes(r) != "PHOTO_REUSED" || r.FlagDetails[0].Message != "Photo 1 (building front) matches a photo submitted for another address." {
		t.Fatalf("the same file again: %+v", r)
	}
	f.clock.Advance(time.Hour)
	third := f.openLive(t, "Lagos")
	r = f.visit(t, a, third, map[string]any{"latitude": 6.428342, "longitude": 3.421801, "accuracy": 9.0}, 5*time.Minute,
		scene(t, 10, 90), scene(t, 2, 40))
	if codes(r) != "PHOTO_REUSED" || !strings.HasPrefix(r.FlagDetails[0].Message, "Photo 2 (street view)") {
		t.Fatalf("the same picture re-encoded: %+v", r)
	}
	// The lender's result names nothing of the other address.
	raw := mustMarshal(t, r)
	if strings.Contains(raw, first) || strings.Contains(raw, "org_") {
		t.Fatalf("the flag leaks the other address: %s", raw)
	}
	// Operations see both matches, with the other organization.
	resp := f.admin(t, "GET", "/admin/v1/tasks/"+first+"/evidence", nil)
	expect(t, "evidence", resp, http.StatusOK, "")
	var ev httpapi.Evidence
	resp.data(t, &ev)
	if len(ev.PhotoMatches) != 2 || len(ev.Visits) != 1 {
		t.Fatalf("evidence of the first address: %s", resp.body)
	}
	kinds := ev.PhotoMatches[0].Kind + "," + ev.PhotoMatches[1].Kind
	if kinds != "SAME_FILE,LOOKS_SAME" || ev.PhotoMatches[0].MatchedAddressID != first || ev.PhotoMatches[0].AddressID != second ||
		ev.PhotoMatches[0].OrgID == ev.PhotoMatches[0].MatchedOrgID {
		t.Fatalf("matches: %s", resp.body)
	}
	expect(t, "evidence without the token", f.do(t, request{method: "GET", path: "/admin/v1/tasks/" + first + "/evidence"}),
		http.StatusUnauthorized, "UNAUTHORIZED")
	expect(t, "evidence of an unknown address", f.admin(t, "GET", "/admin/v1/tasks/adr_00000000000000000000000000000000/evidence", nil),
		http.StatusNotFound, "NOT_FOUND")
}

func TestVisitTrail(t *testing.T) {
	t.Parallel()
	f := setup(t)
	a := f.newAgent(t, "Lagos")
	adr := f.openLive(t, "Lagos")
	at := map[string]any{"latitude": 6.428137, "longitude": 3.421912, "accuracy": 9.0}
	expect(t, "check-in", f.do(t, a.call("POST", "/agent/v1/tasks/"+adr+"/check-in", "c1", at)), http.StatusOK, "")
	now := time.Now().UTC()
	sample := func(lat float64, at time.Time) map[string]any {
		return map[string]any{"latitude": lat, "longitude": 3.421912, "accuracy": 12.5, "at": at.Format(time.RFC3339Nano)}
	}
	body := func(samples ...map[string]any) map[string]any {
		return map[string]any{"outcome": "NO_ACCESS", "latitude": 6.428137, "longitude": 3.421912, "accuracy": 9, "trail": map[string]any{"samples": samples}}
	}
	many := make([]map[string]any, verification.MaxTrailSamples+1)
	for i := range many {
		many[i] = sample(6.428137, now)
	}
	for _, tc := range []struct {
		name, field string
		body        map[string]any
	}{
		{"too many samples", "trail.samples", body(many...)},
		{"a latitude out of range", "trail.samples[1].latitude", body(sample(6.42, now), sample(91, now))},
		{"no time", "trail.samples[0].at", body(map[string]any{"latitude": 6.42, "longitude": 3.42, "accuracy": 5})},
		{"a time two days ago", "trail.samples[0].at", body(sample(6.42, now.Add(-48*time.Hour)))},
		{"a time in an hour", "trail.samples[0].at", body(sample(6.42, now.Add(time.Hour)))},
		{"a negative accuracy", "trail.samples[0].accuracy", body(map[string]any{"latitude": 6.42, "longitude": 3.42, "accuracy": -1, "at": now.Format(time.RFC3339)})},
	} {
		r := f.do(t, a.call("POST", "/agent/v1/tasks/"+adr+"/complete", "bad-"+tc.name, tc.body))
		expect(t, tc.name, r, http.StatusBadRequest, "VALIDATION_ERROR")
		if r.field() != tc.field {
			t.Errorf("%s: field %q, want %q: %s", tc.name, r.field(), tc.field, r.body)
		}
	}
	many = many[:verification.MaxTrailSamples]
	many[0], many[1] = sample(6.428201, now.Add(-4*time.Minute)), sample(6.428150, now.Add(-5*time.Minute))
	f.clock.Advance(4 * time.Minute)
	expect(t, "no access with its trail", f.do(t, a.call("POST", "/agent/v1/tasks/"+adr+"/complete", "d1", body(many...))), http.StatusOK, "")
	r := f.admin(t, "GET", "/admin/v1/tasks/"+adr+"/evidence", nil)
	var ev httpapi.Evidence
	r.data(t, &ev)
	if len(ev.Visits) != 1 {
		t.Fatalf("visits: %s", r.body)
	}
	v := ev.Visits[0]
	if v.Outcome != "NO_ACCESS" || v.CheckIn == nil || v.CheckIn.Latitude != 6.428137 || v.SecondsOnSite == nil || *v.SecondsOnSite < 240 ||
		*v.SecondsOnSite > 250 || len(v.Samples) != verification.MaxTrailSamples || v.Samples[0].Latitude != 6.428150 || v.Samples[0].Accuracy != 12.5 {
		t.Fatalf("trail: %+v", v)
	}
}

func formatFloat(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

func mustMarshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
