package verification

import (
	"strings"
	"testing"
	"time"

	"github.com/kycfield/kyc/pkg/apperr"
)

// TestHolds walks the hold rule over every policy, flags of each
// severity, and both environments: sandbox results are never held.
func TestHolds(t *testing.T) {
	flags := map[string][]string{
		"none":     nil,
		"info":     {FlagLowAccuracy},
		"warning":  {FlagPhotoFar},
		"critical": {FlagPhotoReused},
		"mixed":    {FlagPhotoWithoutGPS, FlagShortVisit},
		"unknown":  {"NOT_A_FLAG"},
	}
	held := map[string]map[string]bool{
		ReviewNone:    {},
		"":            {},
		"SOMETIMES":   {},
		ReviewFlagged: {"warning": true, "critical": true, "mixed": true},
		ReviewAll:     {"none": true, "info": true, "warning": true, "critical": true, "mixed": true, "unknown": true},
	}
	for policy, want := range held {
		for name, fl := range flags {
			for _, env := range []string{EnvLive, EnvTest} {
				got := Holds(policy, env, Result{Flags: fl})
				if w := want[name] && env == EnvLive; got != w {
					t.Errorf("Holds(%q, %s, flags %s) = %v; want %v", policy, env, name, got, w)
				}
			}
		}
	}
}

func TestDecisionCheck(t *testing.T) {
	long := strings.Repeat("a", maxText+1)
	for _, tc := range []struct {
		name  string
		d     Decision
		field string // "" when valid
	}{
		{"approve", Decision{Decision: DecisionApprove}, ""},
		{"approve with a note", Decision{Decision: DecisionApprove, Note: "Looks right."}, ""},
		{"reject", Decision{Decision: DecisionReject, Reason: ReasonWrongAddress, Note: "The photo is of another street."}, ""},
		{"reject unsafe", Decision{Decision: DecisionReject, Reason: ReasonUnsafeArea, Note: "Not safe to send anyone."}, ""},
		{"revisit", Decision{Decision: DecisionRevisit, Note: "Take the photo at the gate."}, ""},
		{"revisit another agent", Decision{Decision: DecisionRevisit, Note: "x", AgentID: "agt_019a2b3c4d5e6f708192a3b4c5d6e7f8"}, ""},
		{"no decision", Decision{}, "decision"},
		{"lower case", Decision{Decision: "approve"}, "decision"},
		{"reject without reason", Decision{Decision: DecisionReject, Note: "x"}, "reason"},
		{"reject NO_ACCESS", Decision{Decision: DecisionReject, Reason: ReasonNoAccess, Note: "x"}, "reason"},
		{"reject unknown reason", Decision{Decision: DecisionReject, Reason: "BAD_VIBES", Note: "x"}, "reason"},
		{"approve with a reason", Decision{Decision: DecisionApprove, Reason: ReasonWrongAddress}, "reason"},
		{"reject without note", Decision{Decision: DecisionReject, Reason: ReasonWrongAddress}, "note"},
		{"revisit blank note", Decision{Decision: DecisionRevisit, Note: "  "}, "note"},
		{"note too long", Decision{Decision: DecisionRevisit, Note: long}, "note"},
		{"note with control characters", Decision{Decision: DecisionRevisit, Note: "go\x00back"}, "note"},
		{"agent on approve", Decision{Decision: DecisionApprove, AgentID: "agt_019a2b3c4d5e6f708192a3b4c5d6e7f8"}, "agentId"},
		{"agent not an id", Decision{Decision: DecisionRevisit, Note: "x", AgentID: "bob"}, "agentId"},
	} {
		err := tc.d.check()
		if tc.field == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		e, ok := apperr.As(err)
		if !ok || e.Code != apperr.CodeValidation || len(e.Details) == 0 || e.Details[0].Field != tc.field {
			t.Errorf("%s: got %v; want a validation error on %s", tc.name, err, tc.field)
		}
	}
}

func FuzzDecisionCheck(f *testing.F) {
	f.Add("REJECT", "WRONG_ADDRESS", "note", "")
	f.Add("REVISIT", "", "go back", "agt_019a2b3c4d5e6f708192a3b4c5d6e7f8")
	f.Fuzz(func(t *testing.T, decision, reason, note, agent string) {
		d := Decision{Decision: decision, Reason: reason, Note: note, AgentID: agent}
		if d.check() == nil && (len([]rune(note)) > maxText || (decision != DecisionApprove && strings.TrimSpace(note) == "")) {
			t.Fatalf("accepted %+v", d)
		}
	})
}

// TestHeldResultKeepsTheSubmission: a held VERIFIED stays IN_REVIEW with
// the result as submitted and the outcome to release, and a live
// UNSAFE_AREA attempt is held whatever the policy.
func TestHeldResultKeepsTheSubmission(t *testing.T) {
	now := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	agent := FieldAgent{ID: "agt_1", Name: "Tunde"}
	visit := func(env string) *Job {
		return &Job{Env: env, Status: InProgress, Visit: &CheckInRecord{Point: Point{Latitude: 6.4281, Longitude: 3.4219}, At: now.Add(-10 * time.Minute)},
			Photos:  []Photo{{ID: "pho_1", Tag: "building_front", CreatedAt: now.Add(-5 * time.Minute)}, {ID: "pho_2", Tag: "street_view", CreatedAt: now.Add(-4 * time.Minute)}},
			Address: Address{StreetName: "Adeola Odeku Street", City: "Victoria Island", State: "Lagos", Country: "Nigeria"}}
	}
	o := Outcome{Outcome: Verified, VerifiedAddress: "12 Adeola Odeku Street", At: Point{Latitude: 6.4281, Longitude: 3.4219, Accuracy: 8}}
	j := visit(EnvLive)
	if err := endVisit(j, agent, o, now, nil, ReviewAll); err != nil {
		t.Fatal(err)
	}
	if j.Status != InReview || j.Hold == nil || j.Hold.Kind != HoldResult || j.Hold.Outcome != Verified || j.Hold.AgentID != agent.ID ||
		j.Result == nil || j.Result.VerifiedAddress != o.VerifiedAddress || j.CompletedAt != nil {
		t.Fatalf("held: %+v %+v", j, j.Hold)
	}
	j = visit(EnvTest)
	if err := endVisit(j, agent, o, now, nil, ReviewAll); err != nil || j.Status != Verified || j.Hold != nil {
		t.Fatalf("sandbox: %v %s", err, j.Status)
	}
	for _, policy := range []string{ReviewNone, ReviewFlagged, ReviewAll} {
		j = visit(EnvLive)
		unsafe := Outcome{Outcome: Rejected, Reason: ReasonUnsafeArea, Notes: "Crowd at the junction", At: o.At}
		if err := endVisit(j, agent, unsafe, now, nil, policy); err != nil {
			t.Fatal(err)
		}
		if j.Status != InReview || j.Hold == nil || j.Hold.Kind != HoldUnsafeArea || len(j.Attempts) != 1 {
			t.Fatalf("%s: UNSAFE_AREA: %s %+v", policy, j.Status, j.Hold)
		}
	}
}

func TestReviewNote(t *testing.T) {
	rv := []Review{{Decision: DecisionRevisit, Note: "Photograph the gate"}}
	for _, tc := range []struct {
		j    Job
		want string
	}{
		{Job{Status: Assigned, Reviews: rv}, "Photograph the gate"},
		{Job{Status: InProgress, Reviews: rv}, "Photograph the gate"},
		{Job{Status: InReview, Reviews: rv}, ""},
		{Job{Status: Verified, Reviews: rv}, ""},
		{Job{Status: Assigned, Reviews: append(rv, Review{Decision: DecisionApprove})}, ""},
		{Job{Status: Assigned}, ""},
	} {
		if got := tc.j.ReviewNote(); got != tc.want {
			t.Errorf("%s %v: %q; want %q", tc.j.Status, tc.j.Reviews, got, tc.want)
		}
	}
}

func TestHeldCursorRoundTrip(t *testing.T) {
	c := HeldCursor{Since: time.Date(2026, 11, 26, 9, 0, 0, 123456789, time.UTC), AddressID: "adr_019a2b3c4d5e6f708192a3b4c5d6e7f8"}
	got, err := ParseHeldCursor(c.String())
	if err != nil || !got.Since.Equal(c.Since) || got.AddressID != c.AddressID {
		t.Fatalf("%v %+v", err, got)
	}
	for _, bad := range []string{"x", "!!!", c.String()[:10]} {
		if _, err := ParseHeldCursor(bad); !apperr.IsCode(err, apperr.CodeValidation) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
