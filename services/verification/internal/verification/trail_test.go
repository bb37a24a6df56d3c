package verification

import (
	"testing"
	"time"

	"github.com/kycfield/kyc/pkg/jsonbody"
)

// FuzzParseTrail: a trail as the agent API decodes it (pkg/jsonbody, the
// real decoder) is either refused with fields named, or kept bounded,
// in range and oldest first.
func FuzzParseTrail(f *testing.F) {
	now := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	for _, s := range []string{
		`{"samples":[{"latitude":6.428137,"longitude":3.421912,"accuracy":9,"at":"2026-11-26T08:58:00Z"}]}`,
		`{"samples":[{"latitude":6.4,"longitude":3.4,"accuracy":9,"at":"2026-11-26T08:59:00.5+01:00"},{"latitude":6.5,"longitude":3.5,"accuracy":1,"at":"2026-11-26T08:50:00Z"}]}`,
		`{"samples":[{"latitude":91,"longitude":3.4,"accuracy":-1,"at":"yesterday"}]}`,
		`{"samples":[{"latitude":0,"longitude":0,"accuracy":0,"at":"2026-11-24T08:00:00Z"}]}`,
		`{"samples":null}`, `{"samples":[{}]}`, `{"samples":[{"latitude":1e999}]}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		var in struct {
			Samples []TrailSampleInput `json:"samples"`
		}
		if jsonbody.Decode([]byte(body), &in) != nil {
			return
		}
		out, problems := parseTrail(in.Samples, now)
		if len(problems) > 0 {
			for _, p := range problems {
				if p.Field == "" || p.Message == "" {
					t.Fatalf("a problem without its field: %+v", problems)
				}
			}
			return
		}
		if len(out) != len(in.Samples) || len(out) > MaxTrailSamples {
			t.Fatalf("kept %d of %d", len(out), len(in.Samples))
		}
		for i, s := range out {
			if s.Latitude < -90 || s.Latitude > 90 || s.Longitude < -180 || s.Longitude > 180 || s.Accuracy < 0 ||
				s.At.Before(now.Add(-trailMaxAge)) || s.At.After(now.Add(trailMaxAhead)) || (i > 0 && s.At.Before(out[i-1].At)) {
				t.Fatalf("sample %d kept: %+v", i, s)
			}
		}
	})
}

func TestParseTrailAtTheEdges(t *testing.T) {
	now := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	s := func(at time.Time) TrailSampleInput {
		return TrailSampleInput{Latitude: 6.428137, Longitude: 3.421912, Accuracy: 9, At: at.Format(time.RFC3339Nano)}
	}
	many := func(n int) []TrailSampleInput {
		out := make([]TrailSampleInput, n)
		for i := range out {
			out[i] = s(now)
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		in    []TrailSampleInput
		field string
	}{
		{"none", nil, ""},
		{"500 samples", many(MaxTrailSamples), ""},
		{"501 samples", many(MaxTrailSamples + 1), "trail.samples"},
		{"24 hours old", []TrailSampleInput{s(now.Add(-trailMaxAge))}, ""},
		{"a moment more", []TrailSampleInput{s(now.Add(-trailMaxAge - time.Millisecond))}, "trail.samples[0].at"},
		{"10 minutes ahead (a phone's clock)", []TrailSampleInput{s(now.Add(trailMaxAhead))}, ""},
		{"a moment more ahead", []TrailSampleInput{s(now.Add(trailMaxAhead + time.Millisecond))}, "trail.samples[0].at"},
		{"0,0", []TrailSampleInput{{At: now.Format(time.RFC3339)}}, "trail.samples[0].latitude"},
		{"an accuracy of 100 km", []TrailSampleInput{{Latitude: 6.4, Longitude: 3.4, Accuracy: 100_000, At: now.Format(time.RFC3339)}}, ""},
		{"over 100 km", []TrailSampleInput{{Latitude: 6.4, Longitude: 3.4, Accuracy: 100_001, At: now.Format(time.RFC3339)}}, "trail.samples[0].accuracy"},
	} {
		_, problems := parseTrail(tc.in, now)
		got := ""
		if len(problems) > 0 {
			got = problems[0].Field
		}
		if got != tc.field {
			t.Errorf("%s: %+v, want field %q", tc.name, problems, tc.field)
		}
	}
}
