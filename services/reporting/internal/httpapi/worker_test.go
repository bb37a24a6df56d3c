package httpapi_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/services/reporting/internal/events"
	"github.com/kycfield/kyc/services/reporting/internal/postgres"
	"github.com/kycfield/kyc/services/reporting/internal/render"
	"github.com/kycfield/kyc/services/reporting/internal/report"
)

// runWorker runs the render worker, as the service does, until the test
// ends.
func (f fixture) runWorker(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = (&render.Worker{Service: f.svc, Pool: f.pool, Poll: 20 * time.Millisecond, Parallel: 2, Log: logging.Discard()}).Run(ctx)
	}()
	t.Cleanup(func() { cancel(); <-done })
}

// served waits until each customer's report is served, failing after
// limit.
func (f fixture) served(t *testing.T, who tenant, limit time.Duration, customers ...string) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for _, id := range customers {
		for f.report(t, who, id).status != http.StatusOK {
			if time.Now().After(deadline) {
				t.Fatalf("customer %s's report not served within %v", id, limit)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// The worker renders every announced render, one customer's in order,
// several customers' at once; a render that fails (its customer's profile
// not there yet) is retried when its backoff ends, with no announcement.
func TestTheWorkerRendersWhatIsQueuedAndRetriesAFailure(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.runWorker(t)
	who := newTenant("live")
	early := "cus_" + strings.Repeat("cd", 16)
	apply(t, f.outcomes, outcome(t, who, early, report.Verified)) // before its profile: fails, then retried
	var ids []string
	for range 6 {
		id := f.customer(t, who, events.TypeCustomerCreated)
		apply(t, f.outcomes, outcome(t, who, id, report.Verified))
		ids = append(ids, id)
	}
	twice := ids[0]
	apply(t, f.outcomes, outcome(t, who, twice, report.Rejected)) // a second version, queued behind the first
	f.served(t, who, 30*time.Second, ids...)
	f.customerEvent(t, who, events.TypeCustomerCreated, early)
	f.served(t, who, 30*time.Second, early)
	deadline := time.Now().Add(30 * time.Second)
	for f.count(t, `SELECT count(*) FROM renders`) != 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := f.count(t, `SELECT count(*) FROM renders`); n != 0 {
		t.Fatalf("%d renders left queued", n)
	}
	if got := f.report(t, who, twice); got.header.Get("X-Report-Version") != "2" ||
		f.count(t, `SELECT count(*) FROM reports WHERE customer_id = $1 AND version = 2 AND status = $2`, twice, report.Rejected) != 1 {
		t.Fatalf("the second outcome's version: %v", got.header)
	}
	if n := f.count(t, `SELECT count(*) FROM reports`); n != 8 {
		t.Fatalf("%d reports; want 8 (one per outcome)", n)
	}
}

// A render claimed by a worker that died is rendered by another once its
// lease ends: the worker, finding nothing due, sleeps until the lease's
// end rather than for its idle minute.
func TestARenderLeftByADeadWorkerIsRenderedWhenItsLeaseEnds(t *testing.T) {
	t.Parallel()
	f := setup(t)
	who := newTenant("live")
	id := f.customer(t, who, events.TypeCustomerCreated)
	apply(t, f.outcomes, outcome(t, who, id, report.Verified))
	store := postgres.New(f.pool, "reporting-events", nil)
	if c, err := store.ClaimRender(context.Background(), 500*time.Millisecond); err != nil || !c.Claimed {
		t.Fatalf("the dying worker's claim: %+v %v", c, err)
	}
	// That worker dies here, holding the lease.
	f.runWorker(t)
	f.served(t, who, 30*time.Second, id)
	if n := f.count(t, `SELECT count(*) FROM reports WHERE customer_id = $1`, id); n != 1 {
		t.Fatalf("%d reports; want 1", n)
	}
}
