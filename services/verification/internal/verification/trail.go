package verification

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/ids"
)

// TrailSampleInput is one position the agent app sampled during the
// visit, as sent: At is the phone's time of the fix (RFC 3339).
type TrailSampleInput struct {
	Latitude  float64 `json:"latitude"`
	Longitude float64 `json:"longitude"`
	Accuracy  float64 `json:"accuracy"`
	At        string  `json:"at"`
}

// TrailSample is a checked sample.
type TrailSample struct {
	Point
	At time.Time `json:"at"`
}

// VisitTrail is a visit's audit trail, as ODK Collect keeps one: where
// it started and ended (the server's times), the positions sampled in
// between (the phone's times) and the time on site. Operations read it;
// lenders see the flags it leads to.
type VisitTrail struct {
	AddressID, AgentID, Outcome string
	CheckIn                     *CheckInRecord
	Completion                  CheckInRecord
	SecondsOnSite               *float64
	Samples                     []TrailSample
}

// Trail bounds: the app samples every 15 s and keeps at most 500 (two
// hours on site); a phone's clock may be off, but not by a day.
const (
	MaxTrailSamples = 500
	trailMaxAge     = 24 * time.Hour
	trailMaxAhead   = 10 * time.Minute
)

// parseTrail checks the samples against now, and returns them oldest
// first, or every problem with its field.
func parseTrail(in []TrailSampleInput, now time.Time) ([]TrailSample, []apperr.Detail) {
	if len(in) > MaxTrailSamples {
		return nil, []apperr.Detail{{Field: "trail.samples", Message: fmt.Sprintf("must be at most %d samples", MaxTrailSamples)}}
	}
	var d []apperr.Detail
	out := make([]TrailSample, 0, len(in))
	for i, s := range in {
		f := fmt.Sprintf("trail.samples[%d].", i)
		if err := checkPoint(Point{Latitude: s.Latitude, Longitude: s.Longitude, Accuracy: s.Accuracy}, f); err != nil {
			e, _ := apperr.As(err)
			d = append(d, e.Details...)
		}
		at, err := time.Parse(time.RFC3339Nano, s.At)
		switch {
		case err != nil:
			d = append(d, apperr.Detail{Field: f + "at", Message: "must be the fix's time (RFC 3339)"})
		case at.Before(now.Add(-trailMaxAge)) || at.After(now.Add(trailMaxAhead)):
			d = append(d, apperr.Detail{Field: f + "at", Message: "must be within the last 24 hours"})
		}
		out = append(out, TrailSample{Point: Point{Latitude: s.Latitude, Longitude: s.Longitude, Accuracy: s.Accuracy}, At: at.UTC()})
		if len(d) >= 10 {
			break // enough to put the app right
		}
	}
	if len(d) > 0 {
		return nil, d
	}
	slices.SortStableFunc(out, func(a, b TrailSample) int { return a.At.Compare(b.At) })
	return out, nil
}

// trailOf is the trail of the visit j ends now.
func trailOf(j Job, agent FieldAgent, o Outcome, samples []TrailSample, now time.Time) VisitTrail {
	t := VisitTrail{AddressID: j.AddressID, AgentID: agent.ID, Outcome: o.Outcome, CheckIn: j.Visit,
		Completion: CheckInRecord{Point: o.At, At: now}, Samples: samples}
	if t.Samples == nil {
		t.Samples = []TrailSample{}
	}
	if j.Visit != nil {
		secs := math.Round(now.Sub(j.Visit.At).Seconds()*10) / 10
		t.SecondsOnSite = &secs
	}
	return t
}

// Evidence is what operations read of an address beyond what its lender
// sees: every visit's trail, and every photo match, whichever side the
// address is on.
type Evidence struct {
	Trails  []VisitTrail
	Matches []PhotoMatch
}

// Evidence reads an address's evidence for operations.
func (s *Service) Evidence(ctx context.Context, addressID string) (Evidence, error) {
	if !ids.Valid("adr", addressID) {
		return Evidence{}, ErrTaskNotFound
	}
	return s.store.Evidence(ctx, addressID)
}
