package apikey

import (
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
