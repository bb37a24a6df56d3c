package verification

import (
	"testing"
)

var allStatuses = []string{Pending, Assigned, InProgress, InReview, Verified, Rejected, Cancelled}

// TestCanMoveEveryPair spells out the whole transition table: every pair
// of statuses, allowed or not, so a change to moves shows up here.
func TestCanMoveEveryPair(t *testing.T) {
	allowed := map[[2]string]bool{
		{Pending, Assigned}:     true,
		{Pending, Cancelled}:    true,
		{Assigned, InProgress}:  true,
		{Assigned, Pending}:     true, // unassigned
		{Assigned, Cancelled}:   true,
		{InProgress, Verified}:  true,
		{InProgress, Rejected}:  true,
		{InProgress, Assigned}:  true, // no access: a re-visit is due
		{InProgress, Cancelled}: true,
		{InProgress, InReview}:  true, // held for review
		{InReview, Verified}:    true, // approved
		{InReview, Rejected}:    true, // approved, or overturned
		{InReview, Assigned}:    true, // sent back for a re-visit
		{InReview, Cancelled}:   true, // the customer was deleted
	}
	n := 0
	for _, from := range append(allStatuses, "", "UNKNOWN") {
		for _, to := range append(allStatuses, "", "UNKNOWN") {
			want := allowed[[2]string{from, to}]
			if want {
				n++
			}
			if got := CanMove(from, to); got != want {
				t.Errorf("CanMove(%q, %q) = %v; want %v", from, to, got, want)
			}
		}
	}
	if n != len(allowed) {
		t.Fatalf("table lists %d moves, %d were checked", len(allowed), n)
	}
	// Nothing leaves a final status.
	for _, from := range allStatuses {
		if !IsFinal(from) {
			continue
		}
		for _, to := range allStatuses {
			if CanMove(from, to) {
				t.Errorf("%s is final but may move to %s", from, to)
			}
		}
	}
}

func TestIsFinal(t *testing.T) {
	want := map[string]bool{Pending: false, Assigned: false, InProgress: false, Verified: true, Rejected: true, Cancelled: true, "": false}
	for s, w := range want {
		if IsFinal(s) != w {
			t.Errorf("IsFinal(%q) = %v", s, !w)
		}
	}
	for s, w := range map[string]bool{Pending: false, InProgress: false, Verified: true, Rejected: true, Cancelled: false} {
		if IsCaseFinal(s) != w {
			t.Errorf("IsCaseFinal(%q) = %v", s, !w)
		}
	}
}

func TestOverallStatusExamples(t *testing.T) {
	cases := []struct {
		in   []string
		want string
	}{
		{nil, Pending},
		{[]string{Pending, Pending}, Pending},
		{[]string{""}, Pending}, // an address not yet known to verification
		{[]string{Cancelled}, Pending},
		{[]string{Pending, Cancelled}, Pending},
		{[]string{Pending, Assigned}, InProgress},
		{[]string{Pending, Verified}, InProgress},
		{[]string{InProgress}, InProgress},
		{[]string{Verified, Rejected, Assigned}, InProgress},
		{[]string{Verified, Verified}, Verified},
		{[]string{Verified, Cancelled}, Verified},
		{[]string{Verified, Rejected}, Rejected},
		{[]string{Rejected, Cancelled}, Rejected},
	}
	for _, c := range cases {
		if got := OverallStatus(c.in); got != c.want {
			t.Errorf("OverallStatus(%q) = %s; want %s", c.in, got, c.want)
		}
	}
}

func TestReasons(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range Reasons {
		if seen[r.Code] || r.Description == "" {
			t.Errorf("reason %q duplicated or undescribed", r.Code)
		}
		seen[r.Code] = true
		if got, ok := ReasonOf(r.Code); !ok || got != r {
			t.Errorf("ReasonOf(%q) = %+v, %v", r.Code, got, ok)
		}
	}
	if r, _ := ReasonOf(ReasonNoAccess); !r.Attempt {
		t.Error("NO_ACCESS is not an attempt")
	}
	if _, ok := ReasonOf("NOPE"); ok {
		t.Error("unknown reason found")
	}
}
