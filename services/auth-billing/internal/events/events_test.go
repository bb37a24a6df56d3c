package events_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/pkg/outbox"
	"github.com/kycfield/kyc/pkg/pgtest"
	"github.com/kycfield/kyc/services/auth-billing/internal/account"
	"github.com/kycfield/kyc/services/auth-billing/internal/billing"
	"github.com/kycfield/kyc/services/auth-billing/internal/events"
	"github.com/kycfield/kyc/services/auth-billing/internal/postgres"
	"github.com/kycfield/kyc/services/auth-billing/migrations"
)

type fixture struct {
	pool     *pgxpool.Pool
	acc      *account.Service
	outcomes *inbox.Consumer
	reports  *inbox.Consumer
}

func setup(t *testing.T) fixture {
	t.Helper()
	pool, _ := pgtest.NewDB(t, migrations.Set(), outbox.Migration(), inbox.Migration())
	usage := postgres.NewUsage(pool)
	bill := billing.NewService(usage, map[string]billing.PlanPrice{
		account.PlanGrowth:     {Name: "Growth", BaseFeeCents: 50000, UnitPriceCents: 200},
		account.PlanEnterprise: {Name: "Enterprise", BaseFeeCents: 250000, UnitPriceCents: 150},
	}, time.Now)
	return fixture{pool: pool, acc: account.NewService(postgres.New(pool, "auth-events", "staff-audit", "org-audit"), time.Now),
		outcomes: inbox.New("billing", nil, pool, logging.Discard(), inbox.HandlerOf(events.Subscriptions(bill, usage.Within), "auth-billing.billing")),
		reports:  inbox.New("usage", nil, pool, logging.Discard(), inbox.HandlerOf(events.Subscriptions(bill, usage.Within), "auth-billing.usage"))}
}

func newEvent(t *testing.T, typ, orgID, env string, data any) event.Event {
	t.Helper()
	e, err := event.New(typ, orgID, env, data)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestFinalLiveOutcomesAreBilledOncePerAddressAtThePlanInForce(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ctx := context.Background()
	org, err := f.acc.CreateOrg(ctx, "Acme Lending", account.PlanGrowth)
	if err != nil {
		t.Fatal(err)
	}
	outcome := func(env, addr, status string) event.Event {
		e := newEvent(t, events.TypeAddressUpdated, org.ID, env, map[string]any{"customerId": "cus_1", "addressId": addr, "status": status})
		if err := f.outcomes.Apply(ctx, e); err != nil {
			t.Fatalf("%s %s %s: %v", env, addr, status, err)
		}
		return e
	}
	first := outcome("live", "adr_1", "VERIFIED")
	if err := f.outcomes.Apply(ctx, first); err != nil { // redelivery
		t.Fatal(err)
	}
	outcome("live", "adr_1", "REJECTED") // another event for a billed address
	outcome("live", "adr_2", "IN_PROGRESS")
	outcome("test", "adr_3", "VERIFIED")
	if _, err := f.acc.ChangePlan(ctx, org.ID, account.PlanEnterprise); err != nil {
		t.Fatal(err)
	}
	outcome("live", "adr_2", "REJECTED")

	rows, err := f.pool.Query(ctx, `SELECT address_id || ' ' || event_id || ' ' || outcome || ' ' || plan || ' ' || unit_price_cents
		FROM billable_verifications WHERE org_id = $1 ORDER BY address_id`, org.ID)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		got = append(got, s)
	}
	if len(got) != 2 || got[0] != "adr_1 "+first.ID+" VERIFIED growth 200" || !strings.HasSuffix(got[1], " REJECTED enterprise 150") {
		t.Fatalf("billed %q", got)
	}
}

func TestInvalidEventsAreSkippedWithARealCause(t *testing.T) {
	t.Parallel()
	f := setup(t)
	for _, tc := range []struct {
		name  string
		c     *inbox.Consumer
		e     event.Event
		cause string
	}{
		{"outcome without an address", f.outcomes,
			newEvent(t, events.TypeAddressUpdated, "org_x", "live", map[string]any{"customerId": "cus_1", "status": "VERIFIED"}), "addressId"},
		{"outcome that does not decode", f.outcomes,
			newEvent(t, events.TypeAddressUpdated, "org_x", "live", []string{"not", "an", "object"}), "decode " + events.TypeAddressUpdated},
		{"report that does not decode", f.reports,
			newEvent(t, events.TypeGatewayUsage, "org_x", "live", map[string]any{"requests": "many"}), "decode " + events.TypeGatewayUsage},
		{"report with a bad day", f.reports,
			newEvent(t, events.TypeGatewayUsage, "org_x", "live", map[string]any{"day": "10/11/2026", "requests": 3}), "day"},
	} {
		err := tc.c.Apply(context.Background(), tc.e)
		if !inbox.IsPermanent(err) || !strings.Contains(err.Error(), tc.cause) {
			t.Errorf("%s: got %v; want a permanent error mentioning %q", tc.name, err, tc.cause)
		}
	}
	// An unknown organization is not the event's fault: it is retried.
	e := newEvent(t, events.TypeAddressUpdated, "org_unknown", "live", map[string]any{"addressId": "adr_9", "status": "VERIFIED"})
	if err := f.outcomes.Apply(context.Background(), e); err == nil || inbox.IsPermanent(err) {
		t.Errorf("unknown organization: got %v; want an error that is retried", err)
	}
}

func TestGatewayReportsOnlyMoveForward(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ctx := context.Background()
	org, err := f.acc.CreateOrg(ctx, "Acme Lending", account.PlanGrowth)
	if err != nil {
		t.Fatal(err)
	}
	key, err := f.acc.CreateKey(ctx, org.ID, "test", []string{"kyc:read"}, "")
	if err != nil {
		t.Fatal(err)
	}
	late, early := time.Date(2026, 11, 10, 9, 0, 0, 0, time.UTC), time.Date(2026, 11, 10, 8, 0, 0, 0, time.UTC)
	for _, r := range []struct {
		requests int64
		at       time.Time
	}{{5, late}, {3, early}} { // the second report is older on both counts
		e := newEvent(t, events.TypeGatewayUsage, org.ID, "test", events.GatewayUsage{Day: "2026-11-10", Requests: r.requests,
			Keys: map[string]time.Time{key.ID: r.at}})
		if err := f.reports.Apply(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	var requests int64
	var lastUsed time.Time
	if err := f.pool.QueryRow(ctx, `SELECT requests FROM daily_requests WHERE org_id = $1 AND day = '2026-11-10'`, org.ID).Scan(&requests); err != nil {
		t.Fatal(err)
	}
	if err := f.pool.QueryRow(ctx, `SELECT last_used_at FROM api_keys WHERE id = $1`, key.ID).Scan(&lastUsed); err != nil {
		t.Fatal(err)
	}
	if requests != 5 || !lastUsed.Equal(late) {
		t.Fatalf("requests %d, last used %s; want 5 and %s", requests, lastUsed, late)
	}
}

// The sandbox's address outcomes bill nothing, so the usage ledger's
// consumer passes over them before opening a transaction; every live one
// is still read (the handler decides which of those bill).
func TestLedgerSkipsOnlyTheSandboxsOutcomes(t *testing.T) {
	var ledger inbox.Subscription
	for _, s := range events.Subscriptions(nil, nil) {
		if s.Group == "auth-billing.billing" {
			ledger = s
		}
	}
	for env, skipped := range map[string]bool{"test": true, "live": false} {
		for _, status := range []string{"PENDING", "VERIFIED", "REJECTED"} {
			e := newEvent(t, events.TypeAddressUpdated, "org_1", env, map[string]any{"customerId": "cus_1", "addressId": "adr_1", "status": status})
			if ledger.Skip == nil || ledger.Skip(e) != skipped {
				t.Errorf("%s %s: skipped %v, want %v", env, status, ledger.Skip != nil && ledger.Skip(e), skipped)
			}
		}
	}
}
