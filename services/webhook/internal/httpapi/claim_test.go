package httpapi_test

import (
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/kycfield/kyc/pkg/eventually"
	"github.com/kycfield/kyc/pkg/ids"
)

// Slots that free one after the other within the dispatcher's Gather
// are claimed together: a receiver that answers one request at a time,
// each once the one before it is recorded, gets each delivery once, and
// the dispatcher fills the freed slots with a few claims rather than one
// claim per delivery.
func TestFreedSlotsAreClaimedTogether(t *testing.T) {
	t.Parallel()
	f := setup(t, options{})
	f.stop()
	// Only freed slots and full claims wake the dispatcher here: no
	// periodic look, and the events are stored before it starts.
	f.cfg.Poll = time.Hour
	f.cfg.Gather = time.Second
	who := newTenant()
	var mu sync.Mutex
	seen := map[string]int{} // event and endpoint -> requests
	next := make(chan struct{})
	rc := newReceiver(t, nil)
	inner := rc.Config.Handler
	rc.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.Header.Get("webhook-id")+r.URL.Path]++
		mu.Unlock()
		select {
		case <-next:
		case <-r.Context().Done():
		}
		inner.ServeHTTP(w, r)
	})
	endpoints := f.cfg.Workers / f.cfg.PerEndpoint // together they can take every slot
	for i := range endpoints {
		f.endpoint(who, fmt.Sprintf("%s/%d", rc.URL, i), nil)
	}
	const events = 10
	for range events {
		f.publish(who, "verification.completed", completed(ids.New("cus"), ids.New("adr")))
	}
	f.start()
	n := events * endpoints
	for i := range n {
		next <- struct{}{}
		eventually.True(t, patience, "the answered delivery recorded", func() bool {
			return f.count(`SELECT count(*) FROM deliveries WHERE status = 'succeeded'`) == i+1
		})
	}
	claims, claimed := f.d.Claims()
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != n || len(rc.requests()) != n || claimed != int64(n) {
		t.Fatalf("%d deliveries made %d requests, %d distinct, %d claimed", n, len(rc.requests()), len(seen), claimed)
	}
	if claims > int64(n/4) {
		t.Fatalf("%d claims for %d deliveries", claims, n)
	}
	t.Logf("%d claims for %d deliveries", claims, n)
}

// Endpoints that hang hold only their own slots (each its limit, for at
// most the client's timeout): another organization's deliveries all go
// out through the slots left while every hanging request is still open.
func TestHangingEndpointsHoldOnlyTheirOwnSlots(t *testing.T) {
	t.Parallel()
	f := setup(t, options{timeout: time.Minute})
	slow, fast := newTenant(), newTenant()
	hang := newReceiver(t, nil)
	hang.hang = make(chan struct{})
	defer close(hang.hang)
	hanging := f.cfg.Workers/f.cfg.PerEndpoint - 1 // every slot but one endpoint's worth
	for range hanging {
		f.endpoint(slow, hang.URL, nil)
	}
	for range 3 {
		f.publish(slow, "verification.completed", completed(ids.New("cus"), ids.New("adr")))
	}
	held := hanging * f.cfg.PerEndpoint
	eventually.True(t, patience, "the hanging endpoints' requests", func() bool { return len(hang.requests()) == held })
	rc := newReceiver(t, nil)
	f.endpoint(fast, rc.URL, nil)
	const n = 20
	for range n {
		f.publish(fast, "verification.completed", completed(ids.New("cus"), ids.New("adr")))
	}
	eventually.True(t, patience, "the other organization's deliveries", func() bool { return len(rc.requests()) == n })
	if got, open := len(hang.requests()), f.count(`SELECT count(*) FROM attempts a JOIN deliveries d ON d.id = a.delivery_id
		WHERE d.org_id = $1`, slow.org); got != held || open != 0 {
		t.Fatalf("%d requests to the hanging endpoints (want their limit, %d), %d of them ended", got, held, open)
	}
}
