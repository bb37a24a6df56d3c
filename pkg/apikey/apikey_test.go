package apikey

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/kycfield/kyc/pkg/principal"
)

func TestEnvOf(t *testing.T) {
	for _, tc := range []struct {
		secret string
		env    principal.Env
		ok     bool
	}{
		{"mk_test_abc", principal.EnvTest, true},
		{"mk_live_abc", principal.EnvLive, true},
		{Prefix(principal.EnvLive) + "x", principal.EnvLive, true},
		{"mk_prod_abc", "", false},
		{"MK_TEST_abc", "", false},
		{"sk_test_abc", "", false},
		{"", "", false},
	} {
		env, ok := EnvOf(tc.secret)
		if env != tc.env || ok != tc.ok {
			t.Errorf("EnvOf(%q) = %q, %v; want %q, %v", tc.secret, env, ok, tc.env, tc.ok)
		}
	}
}

func TestHashIsSHA256(t *testing.T) {
	// echo -n mk_test_x | sha256sum: auth-billing stores this digest and
	// the gateway caches by it, so both must compute exactly this.
	const want = "548b2a1a4d03e894e26fea2fd3efd217f0c3a37c35c51106d218462a1ea5b4e9"
	if got := HashHex("mk_test_x"); got != want {
		t.Fatalf("HashHex = %s, want %s", got, want)
	}
}

func TestUsable(t *testing.T) {
	now := time.Now()
	past, future := now.Add(-time.Second), now.Add(time.Hour)
	for _, tc := range []struct {
		name string
		k    State
		want bool
	}{
		{"active", State{}, true},
		{"revoked", State{Revoked: true}, false},
		{"missing", State{Missing: true}, false},
		{"grace period running", State{ExpiresAt: &future}, true},
		{"grace period over", State{ExpiresAt: &past}, false},
	} {
		if got := tc.k.Usable(now); got != tc.want {
			t.Errorf("%s: Usable = %v", tc.name, got)
		}
	}
}

// The organization state is a wire contract: auth-billing encodes it in
// the resolve answer and organization events, gateways (possibly older or
// newer ones) decode it from there and from their Redis cache.
func TestOrgStateWireShape(t *testing.T) {
	o := OrgState{ID: "org_1", Plan: Plan{ID: "developer", DailyRequests: 100, TestRecordLimit: 50}, Version: 3}
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"id":"org_1","plan":{"id":"developer","dailyRequests":100,"testRecordLimit":50,"liveAccess":false},"version":3}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
	// What auth-billing published before the shared type (plan prices and
	// all) still decodes to the same state.
	old := `{"id":"org_1","plan":{"id":"developer","name":"Developer","baseFeeCents":0,"unitPriceCents":0,"dailyRequests":100,"testRecordLimit":50,"liveAccess":false,"whiteLabel":false},"version":3}`
	var got OrgState
	if err := json.Unmarshal([]byte(old), &got); err != nil || got != o {
		t.Fatalf("older payload: %+v %v", got, err)
	}
}
