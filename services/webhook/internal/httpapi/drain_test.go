package httpapi_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/kycfield/kyc/pkg/eventually"
	"github.com/kycfield/kyc/pkg/ids"
)

// A webhook replica told to stop (SIGTERM) while a receiver is answering
// finishes that attempt and records it: the replica that carries on does
// not send the event again, and the log shows one successful attempt.
func TestAttemptUnderWayAtShutdownIsRecordedNotResent(t *testing.T) {
	t.Parallel()
	f := setup(t, options{})
	who := newTenant()
	rc := newReceiver(t, nil)
	rc.hang = make(chan struct{})
	ep := f.endpoint(who, rc.URL, nil)
	f.publish(who, "verification.completed", completed(ids.New("cus"), ids.New("adr")))
	eventually.True(t, patience, "the attempt under way", func() bool { return len(rc.requests()) == 1 })

	stopped := make(chan struct{})
	go func() { f.stop(); close(stopped) }() // SIGTERM mid-attempt
	time.Sleep(200 * time.Millisecond)
	rc.mu.Lock()
	close(rc.hang) // the receiver answers after the stop signal
	rc.hang = nil
	rc.mu.Unlock()
	<-stopped

	f.start() // the replica that carries on
	eventually.Value(t, patience, "the attempt recorded", func() (deliveryList, bool) {
		l := f.deliveries(who, ep.ID, "")
		return l, len(l.Deliveries) == 1 && l.Deliveries[0].Status == "succeeded"
	})
	// Barrier: a second event for the same endpoint. The carrying-on
	// replica claims an endpoint's due deliveries oldest first, so once
	// the second is delivered and nothing is in flight, a resend of the
	// first would have been sent already.
	f.publish(who, "verification.completed", completed(ids.New("cus"), ids.New("adr")))
	l := eventually.Value(t, patience, "the barrier delivered, nothing in flight", func() (deliveryList, bool) {
		l := f.deliveries(who, ep.ID, "")
		return l, len(l.Deliveries) == 2 && l.Deliveries[0].Status == "succeeded" && f.inFlight() == 0
	})
	got := rc.requests()
	if len(got) != 2 || got[0].header.Get("webhook-id") == got[1].header.Get("webhook-id") {
		t.Fatalf("the receiver got %d requests (want one per event): %v", len(got), got)
	}
	for _, d := range l.Deliveries {
		if d.AttemptCount != 1 {
			t.Fatalf("delivery %s logged %d attempts, want 1", d.ID, d.AttemptCount)
		}
	}
	if got[0].status != http.StatusNoContent {
		t.Fatalf("answer %d", got[0].status)
	}
}
