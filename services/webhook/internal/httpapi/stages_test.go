package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/eventually"
	"github.com/kycfield/kyc/pkg/ids"
	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/services/webhook/internal/events"
	"github.com/kycfield/kyc/services/webhook/internal/webhook"
)

// transition is verification.address.updated data for one step of a
// visit, as the verification context publishes it.
func transition(cus, adr, status, previous string, seq int) map[string]any {
	d := map[string]any{"customerId": cus, "addressId": adr, "status": status, "sequence": seq,
		"occurredAt": time.Now().UTC().Format(time.RFC3339Nano), "verificationData": nil, "overallStatus": "IN_PROGRESS",
		"verificationDate": nil, "previousStatus": previous, "agentId": "agt_sandbox", "nextVisitAt": nil}
	switch {
	case status == "ASSIGNED" && previous == "IN_PROGRESS":
		d["nextVisitAt"] = "2026-11-27T09:00:00.000Z"
		d["verificationData"] = map[string]any{"attempts": []any{map[string]any{"at": "2026-11-26T09:00:00.000Z", "reason": "NO_ACCESS",
			"notes": "Gate locked.", "by": "agt_sandbox"}}, "timeline": []any{}, "verificationPhotos": []any{}, "photoCount": 0}
	case status == "VERIFIED" || status == "IN_REVIEW":
		d["verificationData"] = addressUpdated(cus, adr, seq)["verificationData"]
	}
	return d
}

func reportGenerated(cus string, version int) map[string]any {
	return map[string]any{"customerId": cus, "reportId": ids.New("rep"), "version": version, "status": "VERIFIED",
		"reportUrl": "https://api.example.com/api/v1/customers/" + cus + "/report", "sha256": strings.Repeat("ab", 32),
		"size": 52000, "generatedAt": time.Now().UTC().Format(time.RFC3339Nano)}
}

// visit publishes one address's visit with a re-visit (assigned, checked
// in, no access, checked in again, held for review, released VERIFIED)
// and its outcome and report, and returns the source event of each stage
// event in order with the stage event's type, the held event and the
// outcome.
func (f *fixture) visit(who tenant, cus string) (sources []event.Event, types []string, held, outcome event.Event) {
	f.t.Helper()
	adr := ids.New("adr")
	steps := []struct{ status, previous, stage string }{
		{"ASSIGNED", "PENDING", webhook.TypeAddressAssigned},
		{"IN_PROGRESS", "ASSIGNED", webhook.TypeAddressCheckedIn},
		{"ASSIGNED", "IN_PROGRESS", webhook.TypeAddressAttempted},
		{"IN_PROGRESS", "ASSIGNED", webhook.TypeAddressCheckedIn},
		{"IN_REVIEW", "IN_PROGRESS", ""},
		{"VERIFIED", "IN_REVIEW", webhook.TypeAddressVerified},
	}
	for i, s := range steps {
		e := f.publish(who, "verification.address.updated", transition(cus, adr, s.status, s.previous, i+2))
		if s.stage == "" {
			held = e
			continue
		}
		sources, types = append(sources, e), append(types, s.stage)
	}
	outcome = f.publish(who, "verification.completed", completed(cus, adr))
	sources, types = append(sources, f.publish(who, "report.generated", reportGenerated(cus, 1))), append(types, webhook.TypeReportReady)
	return sources, types, held, outcome
}

func (rc *receiver) ids() []string {
	var out []string
	for _, r := range rc.requests() {
		out = append(out, r.header.Get("webhook-id"))
	}
	return out
}

// Each step of a visit makes its stage event once, under an id derived
// from its source event; the endpoint gets them in the order they
// happened, even when the first one fails and is retried; the events API
// lists them in the same order with the same bodies. A result held for
// review is neither delivered nor listed. Replaying every source event,
// through the consumer's inbox or past it, adds nothing.
func TestStageEventsArriveInOrderOnce(t *testing.T) {
	t.Parallel()
	f := setup(t, options{})
	who := newTenant()
	stages := newReceiver(t, func(n int, _ []byte) int {
		if n == 1 {
			return http.StatusInternalServerError // the first attempt of address.assigned: retried in 50 ms
		}
		return http.StatusNoContent
	})
	ep := f.endpoint(who, stages.URL, map[string]any{"events": webhook.Staged})
	all := newReceiver(t, nil)
	allEp := f.endpoint(who, all.URL, nil)
	cus := ids.New("cus")
	sources, types, held, outcome := f.visit(who, cus)
	want := make([]string, len(sources))
	for i, s := range sources {
		want[i] = events.StageID(s.ID, types[i])
	}
	eventually.True(t, patience, "every stage event delivered", func() bool { return len(stages.requests()) == len(want)+1 })
	got := stages.ids()
	if got[0] != want[0] || !slices.Equal(got[1:], want) {
		t.Fatalf("delivered %v, want %s (failed, then retried) and %v", got, want[0], want)
	}
	delivered := stages.requests()[1:]
	for i, r := range delivered {
		b := parse(t, r)
		if b.Type != types[i] || b.ID != want[i] || verify(t, ep.Secret, r) != nil {
			t.Fatalf("delivery %d: %s", i, r.body)
		}
		if i > 0 && b.CreatedAt <= parse(t, delivered[i-1]).CreatedAt {
			t.Fatalf("createdAt does not increase: %s after %s", b.CreatedAt, parse(t, delivered[i-1]).CreatedAt)
		}
	}
	checkStageData(t, delivered, cus)

	// The events API: newest first, so the delivered order reversed,
	// byte for byte.
	listed := f.allEvents(who, url.Values{"customerId": {cus}}, 100)
	var listedStages []string
	for _, e := range listed {
		if e.Type == "verification.address.updated" && strings.Contains(string(e.Data), `"IN_REVIEW"`) {
			t.Fatalf("a result held for review is listed: %s", e.Data)
		}
		if slices.Contains(webhook.Staged, e.Type) {
			listedStages = append(listedStages, e.ID)
		}
	}
	slices.Reverse(listedStages)
	if !slices.Equal(listedStages, want) {
		t.Fatalf("listed %v, want %v", listedStages, want)
	}
	for _, r := range delivered {
		one := f.call(who, "GET", "/api/v1/events/"+r.header.Get("webhook-id"), nil)
		if one.status != http.StatusOK || !bytes.Equal(one.env.Data, r.body) {
			t.Fatalf("GET /events/%s: %d %s", r.header.Get("webhook-id"), one.status, one.body)
		}
	}
	// The endpoint with every type gets the five address updates, the
	// outcome and the six stage events: the held one was never stored
	// (the consumer committed it before publish returned), so nothing
	// can deliver it.
	eventually.True(t, patience, "every event to the * endpoint", func() bool { return len(all.requests()) == 12 })
	if n := f.count(`SELECT count(*) FROM messages WHERE id = $1`, held.ID); n != 0 {
		t.Fatalf("the IN_REVIEW update is stored %d times", n)
	}
	for _, r := range all.requests() {
		if bytes.Contains(r.body, []byte(`"IN_REVIEW"`)) {
			t.Fatalf("a result held for review was delivered: %s", r.body)
		}
	}

	// Replays: through the inbox (already processed) and past it (a
	// consumer that never saw them, as after a replay from an earlier
	// offset into a new group): no new message, no new delivery.
	messages := f.count(`SELECT count(*) FROM messages WHERE customer_id = $1`, cus)
	deliveries := f.count(`SELECT count(*) FROM deliveries WHERE endpoint_id = ANY($1)`, []string{ep.ID, allEp.ID})
	subs := events.Subscriptions(f.store.Within, "https://api.example.com")
	freshV := inbox.New("webhook.replay.v", nil, f.pool, logging.Discard(), inbox.HandlerOf(subs, "webhook.verification"))
	freshR := inbox.New("webhook.replay.r", nil, f.pool, logging.Discard(), inbox.HandlerOf(subs, "webhook.reporting"))
	for _, s := range append(sources, held, outcome) {
		cs := []*inbox.Consumer{f.consumer, freshV}
		if s.Type == "report.generated" {
			cs = []*inbox.Consumer{f.reports, freshR}
		}
		for _, c := range cs {
			if err := c.Apply(context.Background(), s); err != nil {
				t.Fatal(err)
			}
		}
	}
	if m, d := f.count(`SELECT count(*) FROM messages WHERE customer_id = $1`, cus),
		f.count(`SELECT count(*) FROM deliveries WHERE endpoint_id = ANY($1)`, []string{ep.ID, allEp.ID}); m != messages || d != deliveries {
		t.Fatalf("replays stored %d messages and %d deliveries, want %d and %d", m, d, messages, deliveries)
	}
	// Barrier: a later event of the same customer arrives next, and
	// nothing else did before it.
	v2 := f.publish(who, "report.generated", reportGenerated(cus, 2))
	eventually.True(t, patience, "the second report", func() bool { return len(stages.requests()) == len(want)+2 })
	if last := stages.ids()[len(want)+1]; last != events.StageID(v2.ID, webhook.TypeReportReady) {
		t.Fatalf("after the replays the endpoint got %s, want only the second report.ready", last)
	}
}

// checkStageData checks what each stage event of visit says.
func checkStageData(t *testing.T, delivered []received, cus string) {
	t.Helper()
	var data []map[string]any
	for _, r := range delivered {
		var d map[string]any
		if err := json.Unmarshal(parse(t, r).Data, &d); err != nil {
			t.Fatal(err)
		}
		if d["customerId"] != cus || (parse(t, r).Type != webhook.TypeReportReady && d["agentId"] != "agt_sandbox") {
			t.Fatalf("%s", r.body)
		}
		data = append(data, d)
	}
	if a := data[2]; a["reason"] != "NO_ACCESS" || a["attempt"] != 1.0 || a["nextVisitAt"] != "2026-11-27T09:00:00.000Z" || a["status"] != "ASSIGNED" {
		t.Fatalf("address.attempted %v", a)
	}
	if v := data[4]; v["status"] != "VERIFIED" || v["sequence"] != 7.0 || !slices.Equal(v["flags"].([]any), []any{"SHORT_VISIT"}) {
		t.Fatalf("address.verified %v", v)
	}
	if r := data[5]; r["version"] != 1.0 || r["reportUrl"] != "https://api.example.com/api/v1/customers/"+cus+"/report" ||
		r["status"] != "VERIFIED" || r["reportId"] == nil || r["sha256"] != nil {
		t.Fatalf("report.ready %v", r)
	}
}

func (f *fixture) count(sql string, args ...any) int {
	f.t.Helper()
	var n int
	if err := f.pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		f.t.Fatal(err)
	}
	return n
}

// One customer's failing stage event holds back only that customer's
// later stage events to that endpoint: another customer's arrive
// meanwhile, and the held ones follow, in order, once it succeeds.
func TestFailingStageEventHoldsBackOnlyItsCustomer(t *testing.T) {
	t.Parallel()
	sched := webhook.Schedule{0}
	for range 40 {
		sched = append(sched, 50*time.Millisecond)
	}
	f := setup(t, options{schedule: sched})
	who := newTenant()
	a, b := ids.New("cus"), ids.New("cus")
	aAdr, bAdr := ids.New("adr"), ids.New("adr")
	// The receiver knows A's first and B's last by what they are, not by
	// their ids: a delivery may arrive before publish returns the id.
	var mu sync.Mutex
	bDone := false
	rc := newReceiver(t, func(_ int, body []byte) int {
		mu.Lock()
		defer mu.Unlock()
		var m struct {
			Type string
			Data struct{ CustomerID string }
		}
		_ = json.Unmarshal(body, &m)
		if m.Type == webhook.TypeAddressCheckedIn && m.Data.CustomerID == b {
			bDone = true
		}
		if m.Type == webhook.TypeAddressAssigned && m.Data.CustomerID == a && !bDone {
			return http.StatusServiceUnavailable
		}
		return http.StatusNoContent
	})
	f.endpoint(who, rc.URL, map[string]any{"events": webhook.Staged})
	first := f.publish(who, "verification.address.updated", transition(a, aAdr, "ASSIGNED", "PENDING", 2))
	head := events.StageID(first.ID, webhook.TypeAddressAssigned)
	aNext := f.publish(who, "verification.address.updated", transition(a, aAdr, "IN_PROGRESS", "ASSIGNED", 3))
	// Behind an unfinished one, it is parked off the due index.
	if n := f.count(`SELECT count(*) FROM deliveries WHERE message_id = $1 AND next_attempt_at IS NULL AND status = 'pending'`,
		events.StageID(aNext.ID, webhook.TypeAddressCheckedIn)); n != 1 {
		t.Fatalf("A's second stage event is not parked behind the first (%d)", n)
	}
	f.publish(who, "verification.address.updated", transition(b, bAdr, "ASSIGNED", "PENDING", 2))
	last := f.publish(who, "verification.address.updated", transition(b, bAdr, "IN_PROGRESS", "ASSIGNED", 3))
	bLast := events.StageID(last.ID, webhook.TypeAddressCheckedIn)
	aSecond := events.StageID(aNext.ID, webhook.TypeAddressCheckedIn)
	eventually.True(t, patience, "A's second stage event", func() bool { return slices.Contains(rc.ids(), aSecond) })
	got := rc.ids()
	at := func(id string) int { return slices.Index(got, id) }
	lastHead := -1 // A's first, when it succeeded
	for i, id := range got {
		if id == head {
			lastHead = i
		}
	}
	if at(bLast) < 0 || at(bLast) > lastHead || lastHead > at(aSecond) || at(head) == lastHead {
		t.Fatalf("order %v: want B's events while A's first (%s) fails, A's second (%s) after it succeeds", got, head, aSecond)
	}
}

// A fresh report whose outcome this service has not stored yet (the
// reporting topic read ahead of the verification topic) is parked, not
// stored and not retried in place, so report.ready never comes before the
// outcome's stage events: the outcome, when it comes, releases it right
// after itself, once.
func TestReportReadyWaitsForTheOutcome(t *testing.T) {
	t.Parallel()
	f := setup(t, options{})
	who := newTenant()
	cus := ids.New("cus")
	e := f.publish(who, "report.generated", reportGenerated(cus, 1))
	if n := f.count(`SELECT count(*) FROM messages WHERE customer_id = $1`, cus); n != 0 {
		t.Fatalf("%d messages stored", n)
	}
	f.publish(who, "verification.completed", completed(cus, ids.New("adr")))
	if got := f.allEvents(who, url.Values{"customerId": {cus}}, 10); len(got) != 2 || got[0].Type != "report.ready" ||
		got[0].ID != events.StageID(e.ID, "report.ready") || got[1].Type != "verification.completed" || got[0].CreatedAt <= got[1].CreatedAt {
		t.Fatalf("listed %+v", got)
	}
	// The report redelivered, the outcome again: nothing more.
	if err := f.reports.Apply(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	f.publish(who, "verification.completed", completed(cus, ids.New("adr")))
	if n := f.count(`SELECT count(*) FROM messages WHERE customer_id = $1 AND event_type = 'report.ready'`, cus); n != 1 {
		t.Fatalf("%d report.ready", n)
	}
	// A report generated longer ago than OutcomeWait (a replay) does
	// not wait.
	other := ids.New("cus")
	old := reportGenerated(other, 2)
	old["generatedAt"] = time.Now().Add(-events.OutcomeWait - time.Minute).UTC().Format(time.RFC3339Nano)
	f.publish(who, "report.generated", old)
	if n := f.count(`SELECT count(*) FROM messages WHERE customer_id = $1 AND event_type = 'report.ready'`, other); n != 1 {
		t.Fatalf("an old report: %d report.ready", n)
	}
}

// A customer's stage event given up (exhausted) lets the next one go.
func TestExhaustedStageEventLetsTheNextGo(t *testing.T) {
	t.Parallel()
	f := setup(t, options{schedule: webhook.Schedule{0, 20 * time.Millisecond}})
	who := newTenant()
	// The head is refused by its type: its id is known only once it is
	// published, and its first attempt may come before the test reads it.
	rc := newReceiver(t, func(_ int, body []byte) int {
		var b struct{ Type string }
		_ = json.Unmarshal(body, &b)
		if b.Type == webhook.TypeAddressAssigned {
			return http.StatusInternalServerError
		}
		return http.StatusNoContent
	})
	f.endpoint(who, rc.URL, map[string]any{"events": webhook.Staged})
	cus, adr := ids.New("cus"), ids.New("adr")
	first := f.publish(who, "verification.address.updated", transition(cus, adr, "ASSIGNED", "PENDING", 2))
	head := events.StageID(first.ID, webhook.TypeAddressAssigned)
	second := f.publish(who, "verification.address.updated", transition(cus, adr, "IN_PROGRESS", "ASSIGNED", 3))
	next := events.StageID(second.ID, webhook.TypeAddressCheckedIn)
	eventually.True(t, patience, "the next after the exhausted one", func() bool { return slices.Contains(rc.ids(), next) })
	if got := rc.ids(); !slices.Equal(got, []string{head, head, next}) {
		t.Fatalf("requests %v, want the first twice (exhausted), then the next", got)
	}
}

// Disabling and enabling the endpoint makes only each customer's first
// unfinished stage event due; the rest follow in order.
func TestReenabledEndpointResumesStageEventsInOrder(t *testing.T) {
	t.Parallel()
	f := setup(t, options{schedule: webhook.Schedule{0, time.Hour}})
	who := newTenant()
	// The first is refused by its type until the endpoint is disabled: its
	// id is known only once it is published, and its first attempt may
	// come before the test reads it.
	var refusing atomic.Bool
	refusing.Store(true)
	rc := newReceiver(t, func(_ int, body []byte) int {
		var b struct{ Type string }
		_ = json.Unmarshal(body, &b)
		if b.Type == webhook.TypeAddressAttempted && refusing.Load() {
			return http.StatusInternalServerError
		}
		return http.StatusNoContent
	})
	ep := f.endpoint(who, rc.URL, map[string]any{"events": webhook.Staged})
	cus, adr := ids.New("cus"), ids.New("adr")
	// Three more, the first failing: disabling the endpoint parks all
	// three; enabling makes only the first due, and all three arrive in
	// order once it succeeds.
	var want []string
	for i, s := range []struct{ status, previous, typ string }{{"ASSIGNED", "IN_PROGRESS", webhook.TypeAddressAttempted},
		{"IN_PROGRESS", "ASSIGNED", webhook.TypeAddressCheckedIn}, {"VERIFIED", "IN_PROGRESS", webhook.TypeAddressVerified}} {
		stageSource(f, who, cus, adr, s.status, s.previous, 4+i, &want, s.typ)
	}
	// Recorded, not only received: an attempt whose failure is written
	// after the endpoint is enabled again schedules its retry a backoff
	// later, beyond the test's patience (seen once in a fresh-clone run).
	eventually.True(t, patience, "a failed attempt of the first, recorded", func() bool {
		return f.count(`SELECT count(*) FROM deliveries WHERE endpoint_id = $1 AND status = 'retrying'`, ep.ID) >= 1
	})
	if r := f.call(who, "PATCH", "/api/v1/webhooks/"+ep.ID, map[string]any{"enabled": false}); r.status != http.StatusOK {
		t.Fatalf("disable: %d %s", r.status, r.body)
	}
	refusing.Store(false)
	if r := f.call(who, "PATCH", "/api/v1/webhooks/"+ep.ID, map[string]any{"enabled": true}); r.status != http.StatusOK {
		t.Fatalf("enable: %d %s", r.status, r.body)
	}
	if n := f.count(`SELECT count(*) FROM deliveries WHERE endpoint_id = $1 AND next_attempt_at IS NOT NULL`, ep.ID); n > 1 {
		t.Fatalf("%d deliveries due after enabling, want only the customer's first unfinished one", n)
	}
	succeeded := func() []string {
		var out []string
		for _, r := range rc.requests() {
			if r.status == http.StatusNoContent {
				out = append(out, r.header.Get("webhook-id"))
			}
		}
		return out
	}
	eventually.True(t, patience, "the three after enabling", func() bool { return len(succeeded()) == 3 })
	if got := succeeded(); !slices.Equal(got, want) {
		t.Fatalf("after enabling %v, want %v", got, want)
	}
}

// stageSource publishes one transition and appends its stage event's id
// to want, returning the source event's id.
func stageSource(f *fixture, who tenant, cus, adr, status, previous string, seq int, want *[]string, typ string) string {
	e := f.publish(who, "verification.address.updated", transition(cus, adr, status, previous, seq))
	*want = append(*want, events.StageID(e.ID, typ))
	return e.ID
}
