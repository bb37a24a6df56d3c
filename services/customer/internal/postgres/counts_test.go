package postgres_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/services/customer/internal/customer"
	"github.com/kycfield/kyc/services/customer/internal/events"
)

// The list's totals (unfiltered and by status) come from counters, not
// from counting rows. Many customers of one organization moving,
// arriving and leaving at once, each in its own transaction, must leave
// every total equal to the customers actually in that status, and the
// other environment's totals untouched.
func TestStatusTotalsStayExactUnderConcurrentMovesCreatesAndDeletes(t *testing.T) {
	t.Parallel()
	f := setup(t)
	who := customer.Caller{OrgID: "org_counts", Env: "test"}
	const existing, arriving = 32, 8
	var cs []customer.Customer
	for i := range existing {
		c, err := f.svc.Create(as(who), who, input(fmt.Sprintf("+23482%08d", i), nil))
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, c)
	}
	// What each existing customer ends as: i%4 picks the outcome, and
	// every eighth is deleted while its events are being applied.
	final := func(i int) string {
		return []string{customer.StatusRejected, customer.StatusInProgress, customer.StatusVerified, customer.StatusVerified}[i%4]
	}
	deleted := func(i int) bool { return i%8 == 7 }

	start := make(chan struct{})
	var wg sync.WaitGroup
	run := func(f func() error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			if err := f(); err != nil {
				t.Error(err)
			}
		}()
	}
	for i, c := range cs {
		consumer := inbox.New("test", nil, f.pool, logging.Discard(), inbox.HandlerOf(events.Subscriptions(f.svc, f.store.Within), "customer.verification-status"))
		run(func() error {
			last := map[string]string{customer.StatusRejected: "REJECTED", customer.StatusInProgress: "IN_REVIEW", customer.StatusVerified: "VERIFIED"}[final(i)]
			for seq, step := range [][2]string{{"ASSIGNED", customer.StatusInProgress}, {"IN_PROGRESS", customer.StatusInProgress}, {last, final(i)}} {
				addr := step[0]
				d := map[string]any{"customerId": c.ID, "addressId": c.Addresses[0].ID, "status": addr, "sequence": seq + 1,
					"occurredAt": time.Now(), "overallStatus": step[1]}
				if step[1] == customer.StatusVerified || step[1] == customer.StatusRejected {
					d["verificationDate"] = time.Now()
				}
				e, _ := event.New(events.TypeAddressUpdated, who.OrgID, who.Env, d)
				if err := consumer.Apply(context.Background(), e); err != nil {
					return fmt.Errorf("apply %s: %w", addr, err)
				}
			}
			return nil
		})
		if deleted(i) {
			run(func() error { return f.svc.Delete(as(who), who, c.ID) })
		}
	}
	for i := range arriving {
		run(func() error {
			_, err := f.svc.Create(as(who), who, input(fmt.Sprintf("+23483%08d", i), nil))
			return err
		})
	}
	close(start)
	wg.Wait()

	want := map[string]int64{"": arriving, customer.StatusPending: arriving}
	for i := range existing {
		if !deleted(i) {
			want[""]++
			want[final(i)]++
		}
	}
	for _, status := range []string{"", customer.StatusPending, customer.StatusInProgress, customer.StatusVerified, customer.StatusRejected} {
		page, err := f.svc.List(context.Background(), customer.ListQuery{OrgID: who.OrgID, Env: who.Env, Page: 1, Limit: 100, Status: status})
		if err != nil {
			t.Fatal(err)
		}
		if page.Total != want[status] || int64(len(page.Customers)) != want[status] {
			t.Errorf("status %q: total %d, %d listed, want %d", status, page.Total, len(page.Customers), want[status])
		}
		live, err := f.svc.List(context.Background(), customer.ListQuery{OrgID: who.OrgID, Env: "live", Page: 1, Limit: 100, Status: status})
		if err != nil || live.Total != 0 {
			t.Errorf("status %q in live: total %d (%v)", status, live.Total, err)
		}
	}
}

// A status's total is its counter row, which replicas from before the
// slots (migration 009) still write, plus its slots: a count kept across
// the upgrade stays exact.
func TestStatusTotalsAddTheCountersKeptBeforeTheSlots(t *testing.T) {
	t.Parallel()
	f := setup(t)
	who := customer.Caller{OrgID: "org_upgraded", Env: "test"}
	if _, err := f.svc.Create(as(who), who, input("+2348040000001", nil)); err != nil {
		t.Fatal(err)
	}
	// As an older replica counted two customers created before.
	for _, sql := range []string{
		`UPDATE customer_counts SET n = n + 2 WHERE org_id = $1 AND env = $2 AND status = 'ALL'`,
		`INSERT INTO customer_counts (org_id, env, status, n) VALUES ($1, $2, 'PENDING', 2)`,
	} {
		if _, err := f.pool.Exec(context.Background(), sql, who.OrgID, who.Env); err != nil {
			t.Fatal(err)
		}
	}
	for status, want := range map[string]int64{"": 3, customer.StatusPending: 3, customer.StatusVerified: 0} {
		page, err := f.svc.List(context.Background(), customer.ListQuery{OrgID: who.OrgID, Env: who.Env, Page: 1, Limit: 10, Status: status})
		if err != nil || page.Total != want {
			t.Errorf("status %q: total %d, want %d (%v)", status, page.Total, want, err)
		}
	}
}
