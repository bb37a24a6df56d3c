package postgres

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/pkg/outbox"
	"github.com/kycfield/kyc/pkg/pgtest"
	"github.com/kycfield/kyc/services/webhook/migrations"
)

// TestOutcomeCheckReadsOnlyTheCustomersMessages holds the outcome check
// (once a report, in the reporting consumer) to the customer's own
// messages in the plan a pooled connection caches for it: the generic
// one, made while the table is small and unanalysed. Its earlier form
// could walk the organization's every outcome there (events_by_type, a
// near tie in cost on a small table), and a burst's report.ready fell
// far behind. The check must leave no organization-wide index usable,
// so the plan holds whatever the costs: with events_by_customer dropped
// (in a transaction rolled back), it may only read the table.
func TestOutcomeCheckReadsOnlyTheCustomersMessages(t *testing.T) {
	pool, _ := pgtest.NewDB(t, migrations.Set(), inbox.Migration(), outbox.Migration())
	ctx := context.Background()
	if _, err := pool.Exec(ctx, `INSERT INTO messages (id, org_id, env, event_type, body, created_at, customer_id)
		SELECT 'msg_' || g, 'org_1', 'test', (ARRAY['address.updated', 'verification.completed', 'report.ready'])[1 + g % 3],
			'{}', now(), 'cus_' || g / 3 FROM generate_series(1, 30) g`); err != nil {
		t.Fatal(err)
	}
	if plan := genericPlan(t, pool, false); !strings.Contains(plan, "events_by_customer") {
		t.Errorf("the outcome check does not read by customer:\n%s", plan)
	}
	if plan := genericPlan(t, pool, true); strings.Contains(plan, "events_by_type") || strings.Contains(plan, "events_by_tenant") {
		t.Errorf("the outcome check can walk an organization's index:\n%s", plan)
	}

	for _, c := range []struct {
		customer string
		want     bool
	}{{"cus_0", true}, {"cus_1", true}, {"cus_none", false}} {
		var b Batch
		var got bool
		b.HasOutcome("org_1", "test", c.customer, &got)
		if err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error { return Tx{tx}.Send(ctx, &b) }); err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("%s has an outcome: %v, want %v", c.customer, got, c.want)
		}
	}
}

// genericPlan explains the outcome check's generic plan, in a
// transaction rolled back; withoutCustomerIndex drops events_by_customer
// in it first.
func genericPlan(t *testing.T, pool *pgxpool.Pool, withoutCustomerIndex bool) string {
	t.Helper()
	ctx := context.Background()
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	stmts := []string{`SET LOCAL plan_cache_mode = force_generic_plan`, `PREPARE outcome(text, text, text) AS ` + hasOutcome}
	if withoutCustomerIndex {
		stmts = append([]string{`DROP INDEX events_by_customer`}, stmts...)
	}
	for _, s := range stmts {
		if _, err := tx.Exec(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	defer func() { _, _ = tx.Exec(ctx, `DEALLOCATE outcome`) }()
	rows, err := tx.Query(ctx, `EXPLAIN EXECUTE outcome('org_1', 'test', 'cus_1')`)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(lines, "\n")
}
