package billing

import (
	"context"
	"time"

	"github.com/kycfield/kyc/pkg/apperr"
)

// DayCount is the number of requests of one UTC day.
type DayCount struct {
	Date     string `json:"date"`
	Requests int64  `json:"requests"`
}

// Store reads what a usage report needs.
type Store interface {
	DailyRequests(ctx context.Context, orgID string, from, to time.Time) ([]DayCount, error)
	PlanPeriods(ctx context.Context, orgID string, from, to time.Time) ([]PlanPeriod, error)
	Billed(ctx context.Context, orgID string, from, to time.Time) ([]BilledGroup, error)
}

// Report is a month of usage with its invoice preview.
type Report struct {
	OrgID                 string     `json:"organizationId"`
	Month                 string     `json:"month"`
	Plan                  string     `json:"plan"`
	RequestsPerDay        []DayCount `json:"requestsPerDay"`
	TotalRequests         int64      `json:"totalRequests"`
	BillableVerifications int64      `json:"billableVerifications"`
	Invoice               Invoice    `json:"invoice"`
	ProrationRule         string     `json:"prorationRule"`
}

// Service builds usage reports.
type Service struct {
	store  Store
	prices map[string]PlanPrice
	now    func() time.Time
}

// NewService returns a Service pricing plans with prices.
func NewService(s Store, prices map[string]PlanPrice, now func() time.Time) *Service {
	return &Service{store: s, prices: prices, now: now}
}

// Report returns usage for month ("YYYY-MM"; empty means the current one).
func (s *Service) Report(ctx context.Context, orgID, month, currentPlan string) (Report, error) {
	now := s.now().UTC()
	start := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	if month != "" {
		var ok bool
		if start, ok = ParseMonth(month); !ok {
			return Report{}, apperr.Validation(apperr.Detail{Field: "month", Message: "must be YYYY-MM"})
		}
	}
	end := start.AddDate(0, 1, 0)
	days, err := s.store.DailyRequests(ctx, orgID, start, end)
	if err != nil {
		return Report{}, apperr.Internal(err)
	}
	periods, err := s.store.PlanPeriods(ctx, orgID, start, end)
	if err != nil {
		return Report{}, apperr.Internal(err)
	}
	billed, err := s.store.Billed(ctx, orgID, start, end)
	if err != nil {
		return Report{}, apperr.Internal(err)
	}
	r := Report{OrgID: orgID, Month: start.Format("2006-01"), Plan: currentPlan, RequestsPerDay: days, ProrationRule: ProrationRule}
	for _, d := range days {
		r.TotalRequests += d.Requests
	}
	for _, b := range billed {
		r.BillableVerifications += b.Count
	}
	r.Invoice = Preview(start, periods, s.prices, billed, now)
	return r, nil
}

// ChangePreview is this month's invoice as it stands and as it would stand
// if the plan changed now: what the dashboard shows before a person
// confirms an upgrade or a downgrade.
type ChangePreview struct {
	Month           string  `json:"month"`
	CurrentPlan     string  `json:"currentPlan"`
	Plan            string  `json:"plan"`
	Current         Invoice `json:"current"`
	Proposed        Invoice `json:"proposed"`
	DifferenceCents int64   `json:"differenceCents"`
	ProrationRule   string  `json:"prorationRule"`
}

// PreviewChange prices a move from currentPlan to plan effective now, by
// the same proration as the month's invoice (ChangePlan starts the new
// period at the same instant).
func (s *Service) PreviewChange(ctx context.Context, orgID, currentPlan, plan string) (ChangePreview, error) {
	if _, ok := s.prices[plan]; !ok {
		return ChangePreview{}, apperr.Validation(apperr.Detail{Field: "plan", Message: "must be one of developer, growth, enterprise"})
	}
	now := s.now().UTC()
	start := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	end := start.AddDate(0, 1, 0)
	periods, err := s.store.PlanPeriods(ctx, orgID, start, end)
	if err != nil {
		return ChangePreview{}, apperr.Internal(err)
	}
	billed, err := s.store.Billed(ctx, orgID, start, end)
	if err != nil {
		return ChangePreview{}, apperr.Internal(err)
	}
	p := ChangePreview{Month: start.Format("2006-01"), CurrentPlan: currentPlan, Plan: plan, ProrationRule: ProrationRule,
		Current: Preview(start, periods, s.prices, billed, now), Proposed: Preview(start, switchAt(periods, plan, now), s.prices, billed, now)}
	p.DifferenceCents = p.Proposed.TotalCents - p.Current.TotalCents
	return p, nil
}

// switchAt is periods with the open one closed at now and plan open from
// now; a change to the current plan changes nothing.
func switchAt(periods []PlanPeriod, plan string, now time.Time) []PlanPeriod {
	out := make([]PlanPeriod, 0, len(periods)+1)
	for _, p := range periods {
		if p.End.IsZero() || p.End.After(now) {
			if p.Plan == plan {
				return periods
			}
			p.End = now
		}
		out = append(out, p)
	}
	return append(out, PlanPeriod{Plan: plan, Start: now})
}
