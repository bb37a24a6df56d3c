package httpapi_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/ids"
	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/services/webhook/internal/events"
	"github.com/kycfield/kyc/services/webhook/internal/webhook"
)

// batchers are the two consumers as the platform runs them on a busy
// topic: each applying a batch in one transaction with its batch handler.
func (f *fixture) batchers() (verification, reporting *inbox.Consumer) {
	subs := events.Subscriptions(f.store.Within, "https://api.example.com")
	mk := func(group string) *inbox.Consumer {
		return inbox.New(group, nil, f.pool, logging.Discard(), inbox.HandlerOf(subs, group)).
			WithBatchHandler(inbox.BatchHandlerOf(subs, group))
	}
	return mk("webhook.verification"), mk("webhook.reporting")
}

func (f *fixture) event(who tenant, typ string, data any) event.Event {
	f.t.Helper()
	e, err := event.New(typ, who.org, who.env, data)
	if err != nil {
		f.t.Fatal(err)
	}
	return e
}

// reportReady lists the customer's report.ready messages' ids, oldest
// first, and checks that each comes after the customer's outcome, and
// each stage event at its own time, later than the one before it.
func (f *fixture) reportReady(cus string) []string {
	f.t.Helper()
	rows, err := f.pool.Query(context.Background(), `SELECT id, event_type, created_at FROM messages WHERE customer_id = $1
		ORDER BY created_at, id`, cus)
	if err != nil {
		f.t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	var outcome bool
	var last time.Time
	for rows.Next() {
		var id, typ string
		var at time.Time
		if err := rows.Scan(&id, &typ, &at); err != nil {
			f.t.Fatal(err)
		}
		if slices.Contains(webhook.Staged, typ) {
			if !at.After(last) {
				f.t.Fatalf("customer %s: %s at %s, not after the stage event before it (%s)", cus, typ, at, last)
			}
			last = at
		}
		switch typ {
		case "verification.completed", "verification.rejected":
			outcome = true
		case webhook.TypeReportReady:
			if !outcome {
				f.t.Fatalf("customer %s: report.ready before its outcome", cus)
			}
			out = append(out, id)
		}
	}
	return out
}

// A batch of reports stores one report.ready each, after the customer's
// outcome, with the id derived from the report's event; a replayed batch,
// or one with an event twice, stores nothing more; and a report whose
// outcome has not come yet does not hold back the others of its batch:
// it is parked, and its outcome, stored by a verification batch later,
// releases it right after itself.
func TestReportBatchKeepsOrderOnceAndParksOnlyTheReportWithoutItsOutcome(t *testing.T) {
	t.Parallel()
	f := setup(t, options{})
	who := newTenant()
	rc := newReceiver(t, nil)
	f.endpoint(who, rc.URL, map[string]any{"events": []string{webhook.TypeReportReady}})
	verification, reporting := f.batchers()
	ctx := context.Background()
	cs := []string{ids.New("cus"), ids.New("cus"), ids.New("cus"), ids.New("cus")}
	waiting := cs[2] // its outcome comes after its report
	var outcomes, reports []event.Event
	for _, cus := range cs {
		if cus != waiting {
			outcomes = append(outcomes, f.event(who, "verification.completed", completed(cus, ids.New("adr"))))
		}
		reports = append(reports, f.event(who, "report.generated", reportGenerated(cus, 1)))
	}
	if err := verification.ApplyBatch(ctx, outcomes); err != nil {
		t.Fatal(err)
	}
	if err := reporting.ApplyBatch(ctx, append(slices.Clone(reports), reports[0])); err != nil { // a producer's retry inside the batch
		t.Fatalf("a batch with a report before its outcome: %v", err)
	}
	if err := reporting.ApplyBatch(ctx, reports); err != nil { // redelivered
		t.Fatal(err)
	}
	for i, cus := range cs {
		want := []string{events.StageID(reports[i].ID, webhook.TypeReportReady)}
		if cus == waiting {
			want = nil
		}
		if got := f.reportReady(cus); !slices.Equal(got, want) {
			t.Fatalf("customer %d: report.ready %v, want %v", i, got, want)
		}
	}
	outcome := f.event(who, "verification.completed", completed(waiting, ids.New("adr")))
	if err := verification.ApplyBatch(ctx, []event.Event{outcome}); err != nil {
		t.Fatal(err)
	}
	if err := verification.ApplyBatch(ctx, []event.Event{f.event(who, "verification.rejected", completed(waiting, ids.New("adr")))}); err != nil {
		t.Fatal(err) // a later outcome releases nothing more
	}
	if err := reporting.ApplyBatch(ctx, reports[2:3]); err != nil {
		t.Fatal(err)
	}
	if got := f.reportReady(waiting); !slices.Equal(got, []string{events.StageID(reports[2].ID, webhook.TypeReportReady)}) {
		t.Fatalf("the waiting customer's report.ready: %v", got)
	}
	if n := f.count(`SELECT count(*) FROM deliveries d JOIN messages m ON m.id = d.message_id WHERE m.org_id = $1`, who.org); n != len(cs) {
		t.Fatalf("%d deliveries, want one report.ready each (%d)", n, len(cs))
	}
}

// The two consumers' batches, sharing their customers and listing them
// in opposite orders, run side by side behind a barrier, round after
// round: neither fails (PostgreSQL would abort one of two transactions
// waiting on each other's customer locks), and every customer's
// messages each get their own time, its report.ready after its outcome.
func TestVerificationAndReportBatchesNeverDeadlock(t *testing.T) {
	t.Parallel()
	f := setup(t, options{})
	f.stop() // only the consumers: nothing is sent
	who := newTenant()
	f.endpoint(who, "https://hooks.example.com/kyc", map[string]any{"events": webhook.Staged})
	verification, reporting := f.batchers()
	ctx := context.Background()
	cs := make([]string, 16)
	adrs := make([]string, len(cs))
	var outcomes []event.Event
	for i := range cs {
		cs[i], adrs[i] = ids.New("cus"), ids.New("adr")
		outcomes = append(outcomes, f.event(who, "verification.completed", completed(cs[i], adrs[i])))
	}
	if err := verification.ApplyBatch(ctx, outcomes); err != nil {
		t.Fatal(err)
	}
	const rounds = 20
	for r := range rounds {
		var vs, rs []event.Event
		for i := range cs {
			previous := map[bool]string{true: "ASSIGNED", false: "IN_PROGRESS"}[r%2 == 0]
			status := map[bool]string{true: "IN_PROGRESS", false: "ASSIGNED"}[r%2 == 0]
			vs = append(vs, f.event(who, "verification.address.updated", transition(cs[i], adrs[i], status, previous, 10+r)))
			rs = append(rs, f.event(who, "report.generated", reportGenerated(cs[len(cs)-1-i], 2+r)))
		}
		start := make(chan struct{})
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, run := range []func() error{
			func() error { return verification.ApplyBatch(ctx, vs) },
			func() error { return reporting.ApplyBatch(ctx, rs) },
		} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				errs[i] = run()
			}()
		}
		close(start)
		wg.Wait()
		if errs[0] != nil || errs[1] != nil {
			t.Fatalf("round %d: verification batch: %v; report batch: %v", r, errs[0], errs[1])
		}
	}
	for _, cus := range cs {
		if got := f.reportReady(cus); len(got) != rounds {
			t.Fatalf("customer %s: %d report.ready, want %d", cus, len(got), rounds)
		}
	}
}

// A parked report whose outcome never comes is released once it is
// older than OutcomeWait, by the reporting consumer's sweep.
func TestParkedReportIsReleasedAfterOutcomeWait(t *testing.T) {
	t.Parallel()
	f := setup(t, options{})
	who := newTenant()
	cus := ids.New("cus")
	e := f.publish(who, "report.generated", reportGenerated(cus, 1))
	if n := f.count(`SELECT count(*) FROM reports_waiting WHERE customer_id = $1`, cus); n != 1 {
		t.Fatalf("%d parked", n)
	}
	if _, err := f.pool.Exec(context.Background(), `UPDATE reports_waiting SET generated_at = generated_at - $1::interval
		WHERE customer_id = $2`, (events.OutcomeWait + time.Minute).String(), cus); err != nil {
		t.Fatal(err)
	}
	_, reporting := f.batchers() // a consumer that has not swept yet: a restarted process
	other := ids.New("cus")
	f.publish(who, "verification.completed", completed(other, ids.New("adr")))
	if err := reporting.ApplyBatch(context.Background(), []event.Event{f.event(who, "report.generated", reportGenerated(other, 1))}); err != nil {
		t.Fatal(err)
	}
	if n := f.count(`SELECT count(*) FROM messages WHERE id = $1`, events.StageID(e.ID, webhook.TypeReportReady)); n != 1 {
		t.Fatalf("the overdue report: %d report.ready", n)
	}
	if n := f.count(`SELECT count(*) FROM reports_waiting WHERE customer_id = $1`, cus); n != 0 {
		t.Fatalf("%d still parked", n)
	}
}
