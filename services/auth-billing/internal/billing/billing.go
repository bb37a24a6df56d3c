// Package billing turns usage into money: which verifications are
// billable, and the month's invoice preview with proration when the plan
// changed during the month.
package billing

import (
	"fmt"
	"time"
)

// Currency of every amount; amounts are integer cents.
const Currency = "USD"

// Billable reports whether an address verification outcome is charged:
// live only, and only final outcomes.
func Billable(env, status string) bool {
	return BilledEnv(env) && (status == "VERIFIED" || status == "REJECTED")
}

// BilledEnv reports whether anything done in env is charged: live only,
// so the usage ledger passes over the sandbox's events unread.
func BilledEnv(env string) bool { return env == "live" }

// PlanPeriod is a span during which an organization was on a plan.
// End is zero while the period is open.
type PlanPeriod struct {
	Plan  string
	Start time.Time
	End   time.Time
}

// PlanPrice is what a plan costs.
type PlanPrice struct {
	Name           string
	BaseFeeCents   int64
	UnitPriceCents int64
}

// BilledGroup counts billable verifications recorded at one unit price.
type BilledGroup struct {
	Plan           string
	UnitPriceCents int64
	Count          int64
}

// Line is one invoice line.
type Line struct {
	Description    string `json:"description"`
	Plan           string `json:"plan"`
	Quantity       int64  `json:"quantity"`
	UnitPriceCents int64  `json:"unitPriceCents,omitempty"`
	AmountCents    int64  `json:"amountCents"`
}

// Invoice is the preview of a month's bill.
type Invoice struct {
	Currency     string `json:"currency"`
	Lines        []Line `json:"lines"`
	BaseFeeCents int64  `json:"baseFeeCents"`
	UsageCents   int64  `json:"usageCents"`
	TotalCents   int64  `json:"totalCents"`
}

// ProrationRule is stated to clients in the API documentation.
const ProrationRule = "Each UTC day of the month is billed at 1/N of the monthly base fee (N = days in the month) " +
	"of the plan the organization was on at the end of that day; today and the remaining days of the current month " +
	"are projected at the current plan. Each billable verification is charged at the unit price of the plan in force " +
	"when it reached its final outcome. Amounts are rounded to the nearest cent per plan line."

// Preview computes the invoice for the month starting at monthStart (UTC).
func Preview(monthStart time.Time, periods []PlanPeriod, prices map[string]PlanPrice, billed []BilledGroup, now time.Time) Invoice {
	days := daysIn(monthStart)
	perPlan := map[string]int64{}
	var order []string
	for d := 0; d < days; d++ {
		endOfDay := monthStart.AddDate(0, 0, d+1).Add(-time.Nanosecond)
		at := endOfDay
		if at.After(now) {
			at = now // today and the future: the current plan
		}
		p, ok := planAt(periods, at)
		if !ok {
			continue // the organization did not exist yet
		}
		if _, seen := perPlan[p]; !seen {
			order = append(order, p)
		}
		perPlan[p]++
	}
	inv := Invoice{Currency: Currency, Lines: []Line{}}
	for _, p := range order {
		price := prices[p]
		amount := roundDiv(price.BaseFeeCents*perPlan[p], int64(days))
		inv.Lines = append(inv.Lines, Line{Description: fmt.Sprintf("%s plan, %d of %d days", price.Name, perPlan[p], days),
			Plan: p, Quantity: perPlan[p], AmountCents: amount})
		inv.BaseFeeCents += amount
	}
	for _, g := range billed {
		amount := g.UnitPriceCents * g.Count
		inv.Lines = append(inv.Lines, Line{Description: fmt.Sprintf("Live verifications at %s", cents(g.UnitPriceCents)),
			Plan: g.Plan, Quantity: g.Count, UnitPriceCents: g.UnitPriceCents, AmountCents: amount})
		inv.UsageCents += amount
	}
	inv.TotalCents = inv.BaseFeeCents + inv.UsageCents
	return inv
}

func planAt(periods []PlanPeriod, t time.Time) (string, bool) {
	for i := len(periods) - 1; i >= 0; i-- {
		p := periods[i]
		if !t.Before(p.Start) && (p.End.IsZero() || t.Before(p.End)) {
			return p.Plan, true
		}
	}
	return "", false
}

func daysIn(monthStart time.Time) int {
	return int(monthStart.AddDate(0, 1, 0).Sub(monthStart).Hours() / 24)
}

func roundDiv(a, b int64) int64 { return (a + b/2) / b }

func cents(c int64) string { return fmt.Sprintf("%d.%02d USD", c/100, c%100) }

// ParseMonth parses "YYYY-MM" into the month's first instant (UTC).
func ParseMonth(s string) (time.Time, bool) {
	t, err := time.Parse("2006-01", s)
	if err != nil {
		return time.Time{}, false
	}
	return t.UTC(), true
}
