package e2e

import (
	"context"
	"net/http"
	"testing"
	"time"
)

// A revoked or rolled key stops working on every gateway instance within
// a second: each instance applies the auth event from Kafka to its own
// caches, whatever it had cached.
func TestRevocationReachesEveryGatewayWithinOneSecond(t *testing.T) {
	t.Parallel()
	second, stop, err := P.StartGateway(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	org := P.NewOrg(t, "growth")
	keyID, key := P.NewKey(t, org, "test")
	// Warm both instances' caches.
	for _, gw := range []string{P.GatewayURL, second} {
		for range 3 {
			if r := P.Do(t, reqList(gw, key)); r.Status != http.StatusOK {
				t.Fatalf("warm-up at %s: %d %s", gw, r.Status, r.Body)
			}
		}
	}
	if r := P.Admin(t, "POST", "/admin/v1/keys/"+keyID+"/revoke", nil); r.Status != http.StatusOK {
		t.Fatalf("revoke: %d %s", r.Status, r.Body)
	}
	for _, gw := range []string{P.GatewayURL, second} {
		d := waitUntilRefused(t, gw, key, time.Second)
		t.Logf("refused at %s after %s", gw, d)
	}
	if r := P.Admin(t, "POST", "/admin/v1/keys/"+keyID+"/revoke", nil); r.Status != http.StatusConflict {
		t.Fatalf("second revoke: %d %s", r.Status, r.Body)
	}
}
