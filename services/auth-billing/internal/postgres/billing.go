package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kycfield/kyc/services/auth-billing/internal/billing"
)

// Usage implements billing.Store, and billing.Tx through Within.
type Usage struct{ pool *pgxpool.Pool }

// NewUsage returns the usage repository.
func NewUsage(pool *pgxpool.Pool) *Usage { return &Usage{pool: pool} }

// DailyRequests returns the counted requests per day in [from, to).
func (u *Usage) DailyRequests(ctx context.Context, orgID string, from, to time.Time) ([]billing.DayCount, error) {
	rows, err := u.pool.Query(ctx, `SELECT to_char(day, 'YYYY-MM-DD'), requests FROM daily_requests
		WHERE org_id = $1 AND day >= $2::date AND day < $3::date ORDER BY day`, orgID, from, to)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (billing.DayCount, error) {
		var d billing.DayCount
		return d, r.Scan(&d.Date, &d.Requests)
	})
}

// PlanPeriods returns the plan periods overlapping [from, to).
func (u *Usage) PlanPeriods(ctx context.Context, orgID string, from, to time.Time) ([]billing.PlanPeriod, error) {
	rows, err := u.pool.Query(ctx, `SELECT plan, started_at, ended_at FROM plan_periods
		WHERE org_id = $1 AND started_at < $3 AND (ended_at IS NULL OR ended_at > $2) ORDER BY started_at`, orgID, from, to)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (billing.PlanPeriod, error) {
		var p billing.PlanPeriod
		var end *time.Time
		err := r.Scan(&p.Plan, &p.Start, &end)
		if end != nil {
			p.End = *end
		}
		return p, err
	})
}

// Billed groups the month's billable verifications by unit price.
func (u *Usage) Billed(ctx context.Context, orgID string, from, to time.Time) ([]billing.BilledGroup, error) {
	rows, err := u.pool.Query(ctx, `SELECT plan, unit_price_cents, count(*) FROM billable_verifications
		WHERE org_id = $1 AND occurred_at >= $2 AND occurred_at < $3 GROUP BY plan, unit_price_cents ORDER BY plan`, orgID, from, to)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (billing.BilledGroup, error) {
		var g billing.BilledGroup
		return g, r.Scan(&g.Plan, &g.UnitPriceCents, &g.Count)
	})
}

// Within adapts an open transaction (a consumer's) to billing.Tx.
func (u *Usage) Within(tx pgx.Tx) billing.Tx { return usageTx{tx: tx} }

type usageTx struct{ tx pgx.Tx }

func (t usageTx) CurrentPlan(ctx context.Context, orgID string) (string, error) {
	var plan string
	err := t.tx.QueryRow(ctx, `SELECT plan FROM organizations WHERE id = $1`, orgID).Scan(&plan)
	return plan, err
}

func (t usageTx) AddBillable(ctx context.Context, v billing.BillableVerification) (bool, error) {
	tag, err := t.tx.Exec(ctx, `INSERT INTO billable_verifications (address_id, event_id, org_id, customer_id, outcome, plan, unit_price_cents, occurred_at)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8) ON CONFLICT (address_id) DO NOTHING`,
		v.AddressID, v.EventID, v.OrgID, v.CustomerID, v.Outcome, v.Plan, v.UnitPriceCents, v.OccurredAt)
	return tag.RowsAffected() == 1, err
}

func (t usageTx) RaiseDailyRequests(ctx context.Context, orgID string, day time.Time, n int64) error {
	_, err := t.tx.Exec(ctx, `INSERT INTO daily_requests (org_id, day, requests) VALUES ($1, $2::date, $3)
		ON CONFLICT (org_id, day) DO UPDATE SET requests = GREATEST(daily_requests.requests, EXCLUDED.requests)`, orgID, day, n)
	return err
}

func (t usageTx) TouchKey(ctx context.Context, orgID, keyID string, at time.Time) error {
	_, err := t.tx.Exec(ctx, `UPDATE api_keys SET last_used_at = GREATEST(coalesce(last_used_at, $3), $3) WHERE id = $1 AND org_id = $2`, keyID, orgID, at)
	return err
}
