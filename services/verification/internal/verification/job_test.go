package verification

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kycfield/kyc/pkg/apperr"
)

var t0 = time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)

// jobIn is an open job in status, as the sandbox would have left it there:
// a timeline ending in status and a due time.
func jobIn(status string) Job {
	due := t0
	j := Job{AddressID: "adr_1", CustomerID: "cus_1", OrgID: "org_1", Env: EnvTest, Status: status, Sequence: 1,
		DueAt: &due, CreatedAt: t0, UpdatedAt: t0, Timeline: []Transition{{Status: Pending, At: t0, By: "system"}}}
	if status != Pending {
		j.Sequence = 2
		j.Timeline = append(j.Timeline, Transition{Status: status, At: t0, By: "sandbox"})
	}
	if IsFinal(status) {
		j.DueAt, j.CompletedAt = nil, &due
	}
	return j
}

// op is one use of the aggregate: what it does and the status it aims at.
type op struct {
	name string
	to   string
	// ok reports whether the move is allowed from a status.
	ok func(from string) bool
	do func(j *Job, at time.Time) error
}

var ops = []op{
	{"Assign", Assigned, func(f string) bool { return CanMove(f, Assigned) },
		func(j *Job, at time.Time) error { return j.Assign("agt_1", at, "ops") }},
	{"CheckIn", InProgress, func(f string) bool { return CanMove(f, InProgress) },
		func(j *Job, at time.Time) error { return j.CheckIn(at, "agt_1") }},
	{"Complete VERIFIED", Verified, func(f string) bool { return CanMove(f, Verified) },
		func(j *Job, at time.Time) error {
			return j.Complete(Verified, Result{AgentNotes: "seen"}, []Photo{{ID: "pho_1", Tag: "building_front"}}, at, "agt_1")
		}},
	{"Complete REJECTED", Rejected, func(f string) bool { return CanMove(f, Rejected) },
		func(j *Job, at time.Time) error {
			return j.Complete(Rejected, Result{Reason: ReasonMoved}, nil, at, "agt_1")
		}},
	// A visit without access happens on site only: from IN_PROGRESS, and
	// nowhere else (not even PENDING, from which ASSIGNED is reachable).
	{"NoAccess", Assigned, func(f string) bool { return f == InProgress },
		func(j *Job, at time.Time) error { return j.NoAccess("gate locked", at.Add(24*time.Hour), at, "agt_1") }},
}

func TestJobTransitionsFromEveryStatus(t *testing.T) {
	at := t0.Add(time.Hour)
	for _, o := range ops {
		for _, from := range allStatuses {
			t.Run(o.name+" from "+from, func(t *testing.T) {
				j := jobIn(from)
				before := cloneJob(j)
				err := o.do(&j, at)
				if !o.ok(from) {
					if e, ok := apperr.As(err); !ok || e.Kind != apperr.KindConflict || e.Code != CodeInvalidTransition ||
						!strings.Contains(e.Message, from) {
						t.Fatalf("got %v; want a Conflict %s naming %s", err, CodeInvalidTransition, from)
					}
					if !reflect.DeepEqual(j, before) {
						t.Fatalf("a refused move changed the job:\n got %+v\nwant %+v", j, before)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if j.Status != o.to || j.Sequence != before.Sequence+1 || !j.UpdatedAt.Equal(at) {
					t.Fatalf("status %s seq %d updated %s; want %s %d %s", j.Status, j.Sequence, j.UpdatedAt, o.to, before.Sequence+1, at)
				}
				if len(j.Timeline) != len(before.Timeline)+1 || j.Timeline[len(j.Timeline)-1].Status != o.to ||
					!j.Timeline[len(j.Timeline)-1].At.Equal(at) || j.Timeline[len(j.Timeline)-1].By == "" {
					t.Fatalf("timeline %+v", j.Timeline)
				}
				if IsFinal(o.to) != (j.CompletedAt != nil) || (j.CompletedAt != nil && !j.CompletedAt.Equal(at)) {
					t.Fatalf("completedAt %v for %s", j.CompletedAt, o.to)
				}
				if IsFinal(o.to) && j.DueAt != nil {
					t.Fatalf("a final job is still due at %v", j.DueAt)
				}
			})
		}
	}
}

func TestJobEffectsBeyondTheStatus(t *testing.T) {
	at := t0.Add(time.Hour)
	j := jobIn(Pending)
	if err := j.Assign("agt_7", at, "ops"); err != nil || j.AgentID != "agt_7" || j.DueAt == nil {
		t.Fatalf("assign: %v %+v", err, j)
	}
	if err := j.CheckIn(at, "agt_7"); err != nil {
		t.Fatal(err)
	}
	photos := []Photo{{ID: "pho_1", Tag: "building_front"}, {ID: "pho_2", Tag: "street_view"}}
	if err := j.Complete(Verified, Result{AgentNotes: "seen"}, photos, at, "agt_7"); err != nil {
		t.Fatal(err)
	}
	if j.Result == nil || j.Result.AgentNotes != "seen" || len(j.Photos) != 2 || j.Sequence != 4 {
		t.Fatalf("complete: %+v", j)
	}
	got := []string{}
	for _, tr := range j.Timeline {
		got = append(got, tr.Status)
	}
	if want := []string{Pending, Assigned, InProgress, Verified}; !reflect.DeepEqual(got, want) {
		t.Fatalf("timeline %v; want %v", got, want)
	}
}

func TestCompleteRefusesAnOutcomeThatIsNotFinal(t *testing.T) {
	for _, outcome := range []string{Pending, Assigned, InProgress, Cancelled, ""} {
		j := jobIn(InProgress)
		before := cloneJob(j)
		err := j.Complete(outcome, Result{}, nil, t0, "agt_1")
		if e, ok := apperr.As(err); !ok || e.Kind != apperr.KindInvalid || len(e.Details) != 1 || e.Details[0].Field != "outcome" {
			t.Errorf("Complete(%q): %v; want a validation error on outcome", outcome, err)
		}
		if !reflect.DeepEqual(j, before) {
			t.Errorf("Complete(%q) changed the job", outcome)
		}
	}
}

func TestNoAccessRevisitsThenRejectsOnTheThirdAttempt(t *testing.T) {
	j := jobIn(Assigned)
	at := t0
	for visit := 1; visit <= MaxAttempts; visit++ {
		at = at.Add(24 * time.Hour)
		if err := j.CheckIn(at, "agt_1"); err != nil {
			t.Fatalf("visit %d: %v", visit, err)
		}
		revisit := at.Add(24 * time.Hour)
		if err := j.NoAccess(fmt.Sprintf("visit %d: gate locked", visit), revisit, at, "agt_1"); err != nil {
			t.Fatalf("visit %d: %v", visit, err)
		}
		if len(j.Attempts) != visit || j.Attempts[visit-1].Reason != ReasonNoAccess || !j.Attempts[visit-1].At.Equal(at) ||
			j.Attempts[visit-1].By != "agt_1" || j.Attempts[visit-1].Notes == "" {
			t.Fatalf("visit %d attempts %+v", visit, j.Attempts)
		}
		if visit < MaxAttempts {
			if j.Status != Assigned || j.DueAt == nil || !j.DueAt.Equal(revisit) || j.Result != nil || j.CompletedAt != nil {
				t.Fatalf("visit %d: %s due %v result %+v", visit, j.Status, j.DueAt, j.Result)
			}
			continue
		}
		if j.Status != Rejected || j.Result == nil || j.Result.Reason != ReasonNoAccess || j.DueAt != nil ||
			j.CompletedAt == nil || !j.CompletedAt.Equal(at) {
			t.Fatalf("third visit: %s %+v due %v", j.Status, j.Result, j.DueAt)
		}
		if !strings.Contains(j.Result.Diagnostics, "3 visits") || j.Result.AgentNotes != "visit 3: gate locked" {
			t.Fatalf("diagnostics %q notes %q", j.Result.Diagnostics, j.Result.AgentNotes)
		}
	}
	// Assigned at 2; per visit: IN_PROGRESS and ASSIGNED, the last
	// IN_PROGRESS and REJECTED.
	if j.Sequence != 2+2*MaxAttempts {
		t.Fatalf("sequence %d", j.Sequence)
	}
	last := j.Timeline[len(j.Timeline)-2:]
	if last[0].Status != InProgress || last[1].Status != Rejected {
		t.Fatalf("timeline ends %+v", last)
	}
	// The rejected job takes no further visit.
	before := cloneJob(j)
	if err := j.NoAccess("again", at, at, "agt_1"); !apperr.IsCode(err, CodeInvalidTransition) || !reflect.DeepEqual(j, before) {
		t.Fatalf("NoAccess on a rejected job: %v", err)
	}
}

func TestCancel(t *testing.T) {
	at := t0.Add(time.Hour)
	for _, from := range allStatuses {
		j := jobIn(from)
		before := cloneJob(j)
		moved := j.Cancel(at)
		if IsFinal(from) {
			if moved || !reflect.DeepEqual(j, before) {
				t.Errorf("Cancel on %s: moved=%v, job %+v", from, moved, j)
			}
			continue
		}
		if !moved || j.Status != Cancelled || j.Sequence != before.Sequence+1 || j.CompletedAt == nil || !j.CompletedAt.Equal(at) ||
			j.DueAt != nil || j.Timeline[len(j.Timeline)-1] != (Transition{Status: Cancelled, At: at, By: "system"}) {
			t.Errorf("Cancel on %s: moved=%v, job %+v", from, moved, j)
		}
		// A second cancel is a no-op.
		again := cloneJob(j)
		if j.Cancel(at.Add(time.Minute)) || !reflect.DeepEqual(j, again) {
			t.Errorf("second Cancel on %s changed the job", from)
		}
	}
}

func TestRestatus(t *testing.T) {
	at := t0.Add(time.Hour)
	later := at.Add(time.Hour)
	withJobs := func(status string, date *time.Time, js ...string) Case {
		c := Case{Status: status, VerificationDate: date}
		for _, s := range js {
			c.Jobs = append(c.Jobs, Job{Status: s})
		}
		return c
	}
	cases := []struct {
		name     string
		c        Case
		want     string
		wantDate *time.Time
	}{
		{"first address assigned", withJobs(Pending, nil, Assigned, Pending), InProgress, nil},
		{"all verified: the date is set", withJobs(InProgress, nil, Verified, Verified), Verified, &at},
		{"one rejected: the date is set", withJobs(InProgress, nil, Verified, Rejected), Rejected, &at},
		{"still final: the first date stays", withJobs(Verified, &at, Verified, Verified), Verified, &at},
		{"final to final keeps the date", withJobs(Verified, &at, Verified, Rejected), Rejected, &at},
		{"an added address reopens: the date is cleared", withJobs(Verified, &at, Verified, Pending), InProgress, nil},
		{"no address", withJobs(Pending, nil), Pending, nil},
	}
	for _, tc := range cases {
		c := tc.c
		prev := c.Status
		now := at
		if tc.c.VerificationDate != nil {
			now = later // a date already set must not move to now
		}
		before := c.Restatus(now)
		if before != prev || c.Status != tc.want || !c.UpdatedAt.Equal(now) {
			t.Errorf("%s: before %s status %s updated %s", tc.name, before, c.Status, c.UpdatedAt)
		}
		switch {
		case tc.wantDate == nil && c.VerificationDate != nil:
			t.Errorf("%s: verificationDate %v; want none", tc.name, c.VerificationDate)
		case tc.wantDate != nil && (c.VerificationDate == nil || !c.VerificationDate.Equal(*tc.wantDate)):
			t.Errorf("%s: verificationDate %v; want %v", tc.name, c.VerificationDate, tc.wantDate)
		}
	}
}

// cloneJob copies a job deeply enough that moves on the original do not
// show in the copy (slices and pointers).
func cloneJob(j Job) Job {
	c := j
	c.Timeline = append([]Transition(nil), j.Timeline...)
	c.Attempts = append([]Attempt(nil), j.Attempts...)
	c.Photos = append([]Photo(nil), j.Photos...)
	if j.Timeline == nil {
		c.Timeline = nil
	}
	if j.Attempts == nil {
		c.Attempts = nil
	}
	if j.Photos == nil {
		c.Photos = nil
	}
	if j.DueAt != nil {
		d := *j.DueAt
		c.DueAt = &d
	}
	if j.CompletedAt != nil {
		d := *j.CompletedAt
		c.CompletedAt = &d
	}
	if j.Result != nil {
		r := *j.Result
		c.Result = &r
	}
	return c
}
