package billing

import (
	"context"
	"testing"
	"time"
)

var prices = map[string]PlanPrice{
	"developer":  {Name: "Developer"},
	"growth":     {Name: "Growth", BaseFeeCents: 50000, UnitPriceCents: 200},
	"enterprise": {Name: "Enterprise", BaseFeeCents: 250000, UnitPriceCents: 150},
}

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestPreviewProration(t *testing.T) {
	nov := at("2026-11-01T00:00:00Z") // 30 days
	end := at("2026-12-01T00:00:00Z")
	cases := []struct {
		name    string
		periods []PlanPeriod
		billed  []BilledGroup
		now     time.Time
		base    int64
		usage   int64
	}{
		{"whole month on growth", []PlanPeriod{{Plan: "growth", Start: at("2026-01-01T00:00:00Z")}}, nil, end, 50000, 0},
		{"developer is free", []PlanPeriod{{Plan: "developer", Start: at("2026-01-01T00:00:00Z")}}, nil, end, 0, 0},
		// Upgraded on the 11th at noon: days 1-10 developer, 11-30 growth.
		{"upgrade mid-month", []PlanPeriod{
			{Plan: "developer", Start: at("2026-01-01T00:00:00Z"), End: at("2026-11-11T12:00:00Z")},
			{Plan: "growth", Start: at("2026-11-11T12:00:00Z")},
		}, nil, end, 33333, 0},
		// Enterprise for 15 days then growth for 15.
		{"downgrade", []PlanPeriod{
			{Plan: "enterprise", Start: at("2026-10-01T00:00:00Z"), End: at("2026-11-16T08:00:00Z")},
			{Plan: "growth", Start: at("2026-11-16T08:00:00Z")},
		}, nil, end, 125000 + 25000, 0},
		// Created on the 21st: 10 of 30 days.
		{"created during the month", []PlanPeriod{{Plan: "growth", Start: at("2026-11-21T09:00:00Z")}}, nil, end, 16667, 0},
		// Current month: the rest is projected at the current plan.
		{"projection", []PlanPeriod{{Plan: "developer", Start: at("2026-01-01T00:00:00Z"), End: at("2026-11-05T00:00:00Z")},
			{Plan: "enterprise", Start: at("2026-11-05T00:00:00Z")}}, nil, at("2026-11-10T10:00:00Z"), 216667, 0},
		{"verifications at two prices", []PlanPeriod{{Plan: "growth", Start: at("2026-01-01T00:00:00Z")}},
			[]BilledGroup{{Plan: "growth", UnitPriceCents: 200, Count: 7}, {Plan: "enterprise", UnitPriceCents: 150, Count: 2}}, end, 50000, 1700},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			inv := Preview(nov, c.periods, prices, c.billed, c.now)
			if inv.BaseFeeCents != c.base || inv.UsageCents != c.usage || inv.TotalCents != c.base+c.usage || inv.Currency != "USD" {
				t.Fatalf("got base %d usage %d total %d; want %d %d (%+v)", inv.BaseFeeCents, inv.UsageCents, inv.TotalCents, c.base, c.usage, inv.Lines)
			}
		})
	}
}

func TestBillableAndMonths(t *testing.T) {
	for _, c := range []struct {
		env, status string
		want        bool
	}{{"live", "VERIFIED", true}, {"live", "REJECTED", true}, {"test", "VERIFIED", false}, {"live", "ASSIGNED", false}, {"live", "CANCELLED", false}} {
		if Billable(c.env, c.status) != c.want {
			t.Errorf("Billable(%s, %s) != %v", c.env, c.status, c.want)
		}
	}
	if _, ok := ParseMonth("2026-13"); ok {
		t.Error("month 13 accepted")
	}
	if m, ok := ParseMonth("2024-02"); !ok || daysIn(m) != 29 {
		t.Error("leap February")
	}
}

type fixedStore struct {
	periods []PlanPeriod
	billed  []BilledGroup
}

func (f fixedStore) DailyRequests(context.Context, string, time.Time, time.Time) ([]DayCount, error) {
	return nil, nil
}
func (f fixedStore) PlanPeriods(context.Context, string, time.Time, time.Time) ([]PlanPeriod, error) {
	return f.periods, nil
}
func (f fixedStore) Billed(context.Context, string, time.Time, time.Time) ([]BilledGroup, error) {
	return f.billed, nil
}

func TestPreviewChange(t *testing.T) {
	now := at("2026-11-21T09:00:00Z") // 30-day month; the 21st counts at the new plan
	since := at("2026-01-01T00:00:00Z")
	cases := []struct {
		name, from, plan  string
		periods           []PlanPeriod
		current, proposed int64
	}{
		// Days 1-20 developer, 21-30 growth: 10/30 of 500.00.
		{"upgrade on the 21st", "developer", "growth", []PlanPeriod{{Plan: "developer", Start: since}}, 0, 16667},
		// Growth for 20 days, then free.
		{"downgrade on the 21st", "growth", "developer", []PlanPeriod{{Plan: "growth", Start: since}}, 50000, 33333},
		{"the same plan", "growth", "growth", []PlanPeriod{{Plan: "growth", Start: since}}, 50000, 50000},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := NewService(fixedStore{periods: c.periods, billed: []BilledGroup{{Plan: c.from, UnitPriceCents: 200, Count: 2}}}, prices, func() time.Time { return now })
			p, err := s.PreviewChange(context.Background(), "org", c.from, c.plan)
			if err != nil {
				t.Fatal(err)
			}
			if p.Current.BaseFeeCents != c.current || p.Proposed.BaseFeeCents != c.proposed || p.Proposed.UsageCents != 400 ||
				p.DifferenceCents != c.proposed-c.current {
				t.Fatalf("preview: %+v", p)
			}
		})
	}
	s := NewService(fixedStore{}, prices, func() time.Time { return now })
	if _, err := s.PreviewChange(context.Background(), "org", "growth", "platinum"); err == nil {
		t.Fatal("an unknown plan was priced")
	}
}
