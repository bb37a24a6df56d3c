package postgres_test

import (
	"testing"
	"time"

	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/pkg/outbox"
	"github.com/kycfield/kyc/pkg/pgtest"
	"github.com/kycfield/kyc/services/reporting/internal/postgres"
	"github.com/kycfield/kyc/services/reporting/migrations"
)

// An idle render worker sleeps until the earliest queued render falls due
// (a retry, or a lease that a dead worker left): nothing queued is zero.
func TestNextRenderDue(t *testing.T) {
	pool, _ := pgtest.NewDB(t, migrations.Set(), inbox.Migration(), outbox.Migration())
	ctx := t.Context()
	next, err := postgres.NextRenderDue(ctx, pool)
	if err != nil || !next.IsZero() {
		t.Fatalf("nothing queued: %v, %v; want zero", next, err)
	}
	soon := time.Now().Add(2 * time.Second).Truncate(time.Microsecond)
	for i, at := range []time.Time{soon.Add(time.Hour), soon} {
		if _, err := pool.Exec(ctx, `INSERT INTO renders (id, org_id, env, customer_id, not_before)
			VALUES ($1, 'org_1', 'test', 'cus_1', $2)`, []string{"evt_later", "evt_retry"}[i], at); err != nil {
			t.Fatal(err)
		}
	}
	next, err = postgres.NextRenderDue(ctx, pool)
	if err != nil || !next.Equal(soon) {
		t.Fatalf("next = %v, %v; want the retry's %v", next, err, soon)
	}
}
