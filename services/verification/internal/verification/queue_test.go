package verification

import (
	"slices"
	"testing"
	"time"

	"github.com/kycfield/kyc/pkg/apperr"
)

func TestQueueFilterCheck(t *testing.T) {
	for _, tc := range []struct {
		name  string
		in    QueueFilter
		field string // "" for accepted
		want  QueueFilter
	}{
		{"nothing", QueueFilter{}, "", QueueFilter{Limit: DefaultQueueLimit}},
		{"names in the gazetteer's spelling", QueueFilter{State: "lagos state", LGA: "ETI-OSA", Limit: 10}, "",
			QueueFilter{State: "Lagos", LGA: "Eti Osa", Limit: 10}},
		{"an open status", QueueFilter{Status: "IN_REVIEW"}, "", QueueFilter{Status: "IN_REVIEW", Limit: DefaultQueueLimit}},
		{"the largest page", QueueFilter{Limit: MaxQueueLimit}, "", QueueFilter{Limit: MaxQueueLimit}},
		{"a year", QueueFilter{OlderThan: maxOlderThan}, "", QueueFilter{OlderThan: maxOlderThan, Limit: DefaultQueueLimit}},
		{"an unknown state", QueueFilter{State: "Lagoss"}, "state", QueueFilter{}},
		{"an LGA alone", QueueFilter{LGA: "Ikeja"}, "lga", QueueFilter{}},
		{"an LGA of another state", QueueFilter{State: "Kano", LGA: "Ikeja"}, "lga", QueueFilter{}},
		{"a final status", QueueFilter{Status: Verified}, "status", QueueFilter{}},
		{"a bad organization", QueueFilter{OrgID: "org_x"}, "orgId", QueueFilter{}},
		{"a bad agent", QueueFilter{AgentID: "adr_0123"}, "agentId", QueueFilter{}},
		{"negative age", QueueFilter{OlderThan: -time.Hour}, "olderThanHours", QueueFilter{}},
		{"over a year", QueueFilter{OlderThan: maxOlderThan + time.Hour}, "olderThanHours", QueueFilter{}},
		{"an unknown due", QueueFilter{Due: "week"}, "due", QueueFilter{}},
		{"a page too large", QueueFilter{Limit: MaxQueueLimit + 1}, "limit", QueueFilter{}},
		{"a negative page", QueueFilter{Limit: -1}, "limit", QueueFilter{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.in.Check()
			if tc.field == "" {
				if err != nil || got != tc.want {
					t.Fatalf("got %+v, %v; want %+v", got, err, tc.want)
				}
				return
			}
			e, ok := apperr.As(err)
			if !ok || e.Code != apperr.CodeValidation || e.Details[0].Field != tc.field {
				t.Fatalf("got %v, want a validation error on %s", err, tc.field)
			}
		})
	}
}

func TestQueueWindowInLagos(t *testing.T) {
	// 22:30 UTC is 23:30 in Lagos: today ends in 30 minutes.
	now := time.Date(2026, 11, 26, 22, 30, 0, 0, time.UTC)
	w := windowAt(now)
	if want := time.Date(2026, 11, 26, 23, 0, 0, 0, time.UTC); !w.EndOfDay.Equal(want) {
		t.Fatalf("end of day %s, want %s", w.EndOfDay, want)
	}
	for _, tc := range []struct {
		due            time.Duration
		overdue, today bool
	}{
		{-time.Second, true, false},
		{0, false, true},
		{29 * time.Minute, false, true},
		{30 * time.Minute, false, false},
		{10 * time.Hour, false, false},
	} {
		it := QueueItem{DueBy: now.Add(tc.due)}
		it.Mark(w)
		if it.Overdue != tc.overdue || it.DueToday != tc.today {
			t.Errorf("due in %s: overdue %v, today %v; want %v, %v", tc.due, it.Overdue, it.DueToday, tc.overdue, tc.today)
		}
	}
}

func TestWeekStartIsMondayInLagos(t *testing.T) {
	for _, tc := range []struct{ at, want string }{
		{"2026-11-26T10:00:00Z", "2026-11-22T23:00:00Z"}, // Thursday
		{"2026-11-22T23:00:00Z", "2026-11-22T23:00:00Z"}, // Monday 00:00 in Lagos
		{"2026-11-22T22:59:59Z", "2026-11-15T23:00:00Z"}, // still Sunday in Lagos
		{"2026-11-29T22:00:00Z", "2026-11-22T23:00:00Z"}, // Sunday 23:00 in Lagos
	} {
		at, _ := time.Parse(time.RFC3339, tc.at)
		if got := WeekStart(at).Format(time.RFC3339); got != tc.want {
			t.Errorf("WeekStart(%s) = %s, want %s", tc.at, got, tc.want)
		}
	}
}

func TestCoverageOrder(t *testing.T) {
	agents := []FieldAgent{
		{ID: "a", Active: true, States: []string{"Lagos"}, LGAs: []string{"Ikeja"}},
		{ID: "b", Active: true, States: []string{"Oyo"}},
	}
	counts := []AreaCount{
		{State: "Lagos", LGA: "Ikeja", Open: 9, Waiting: 0},
		{State: "Lagos", LGA: "Epe", Open: 2, Waiting: 0},
		{State: "Kano", LGA: "Albasu", Open: 1, Waiting: 1},
		{State: "Kano", LGA: "Ajingi", Open: 3, Waiting: 3},
		{State: "Oyo", LGA: "Ibadan North", Open: 20, Waiting: 0},
		{State: "lagos", LGA: "ikeja", Open: 1}, // a spelling the gazetteer folds into Lagos, Ikeja
	}
	got := coverageOf(counts, agents)
	if len(got) != 37 {
		t.Fatalf("%d states, want 37", len(got))
	}
	order := []string{got[0].Name, got[1].Name, got[2].Name}
	if order[0] != "Kano" || order[1] != "Oyo" || order[2] != "Lagos" {
		t.Fatalf("order %v: want the uncovered Kano, then by open work", order)
	}
	kano, lagos := got[0], got[2]
	if !kano.Uncovered() || kano.Open != 4 || kano.Waiting != 4 || kano.LGAs[0].Name != "Ajingi" {
		t.Fatalf("Kano: %+v", kano)
	}
	if lagos.Open != 12 || len(lagos.LGAs) != 2 || lagos.LGAs[0].Name != "Ikeja" || lagos.LGAs[0].Open != 10 ||
		lagos.LGAs[0].LGAAgents != 1 || lagos.LGAs[1].LGAAgents != 0 || lagos.LGAs[1].Agents != 1 {
		t.Fatalf("Lagos: %+v", lagos)
	}
	if got[3].Open != 0 || got[3].Uncovered() {
		t.Fatalf("fourth: %+v", got[3])
	}
}

// FuzzQueueFilter: any filter text is accepted in the gazetteer's names
// or refused with a validation error, never a panic or another error.
func FuzzQueueFilter(f *testing.F) {
	f.Add("Lagos", "Eti-Osa", "PENDING", "org_019a2b3c4d5e6f708192a3b4c5d6e7f8", "", "overdue", 10, int64(0))
	f.Add("lagos state", "ikeja", "IN_REVIEW", "", "agt_019a2b3c4d5e6f708192a3b4c5d6e7f8", "today", 0, int64(time.Hour))
	f.Add("\x00", "\xff", "pending", "org_", "agt_", "soon", -1, int64(-1))
	f.Fuzz(func(t *testing.T, state, lga, status, org, agent, due string, limit int, older int64) {
		in := QueueFilter{State: state, LGA: lga, Status: status, OrgID: org, AgentID: agent, Due: due, Limit: limit, OlderThan: time.Duration(older)}
		out, err := in.Check()
		if err != nil {
			if e, ok := apperr.As(err); !ok || e.Code != apperr.CodeValidation || len(e.Details) == 0 {
				t.Fatalf("%+v: %v", in, err)
			}
			return
		}
		if state != "" && !slices.Contains(places().States(), out.State) {
			t.Fatalf("accepted state %q as %q", state, out.State)
		}
		if out.Limit < 1 || out.Limit > MaxQueueLimit {
			t.Fatalf("accepted limit %d", out.Limit)
		}
	})
}
