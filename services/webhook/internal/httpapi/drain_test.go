package httpapi_test

import (
	"net/http"
	"testing"
	"time"

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
	waitFor(t, "the attempt under way", func() bool { return len(rc.requests()) == 1 })

	stopped := make(chan struct{})
	go func() { f.stop(); close(stopped) }() // SIGTERM mid-attempt
	time.Sleep(200 * time.Millisecond)
	rc.mu.Lock()
	close(rc.hang) // the receiver answers after the stop signal
	rc.hang = nil
	rc.mu.Unlock()
	<-stopped

	f.start() // the replica that carries on
	var l deliveryList
	waitFor(t, "the attempt recorded", func() bool {
		l = f.deliveries(who, ep.ID, "")
		return len(l.Deliveries) == 1 && l.Deliveries[0].Status == "succeeded"
	})
	time.Sleep(300 * time.Millisecond) // a resend would arrive now (poll 50 ms)
	if n := len(rc.requests()); n != 1 || l.Deliveries[0].AttemptCount != 1 {
		t.Fatalf("the receiver got %d requests, the log %d attempts; want 1 and 1", n, l.Deliveries[0].AttemptCount)
	}
	if rc.requests()[0].status != http.StatusNoContent {
		t.Fatalf("answer %d", rc.requests()[0].status)
	}
}
