package account

import (
	"strings"
	"testing"

	"github.com/kycfield/kyc/pkg/apikey"
	"github.com/kycfield/kyc/pkg/principal"
)

func TestSecretsAreRandomBase62WithTheirEnvironment(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		s := NewSecret(principal.EnvLive)
		rest, ok := strings.CutPrefix(s, "mk_live_")
		if !ok || len(rest) != 32 || strings.Trim(rest, secretAlphabet) != "" || seen[s] {
			t.Fatalf("bad or repeated secret %q", s)
		}
		seen[s] = true
		if env, _ := apikey.EnvOf(s); env != principal.EnvLive || DisplayPrefix(s) != s[:12] {
			t.Fatal("prefix/env")
		}
	}
	if !strings.HasPrefix(NewSecret(principal.EnvTest), "mk_test_") {
		t.Fatal("test prefix")
	}
	if len(apikey.Hash("x")) != 32 {
		t.Fatal("sha-256")
	}
}

func TestValidateScopes(t *testing.T) {
	cases := []struct {
		in   []string
		want string
		ok   bool
	}{
		{[]string{"kyc:write", "kyc:read", "kyc:read"}, "kyc:read,kyc:write", true},
		{[]string{" kyc:read "}, "kyc:read", true},
		{nil, "", false},
		{[]string{"kyc:admin"}, "", false},
	}
	for _, c := range cases {
		got, err := ValidateScopes(c.in)
		if (err == nil) != c.ok || strings.Join(got, ",") != c.want {
			t.Errorf("ValidateScopes(%v) = %v, %v", c.in, got, err)
		}
	}
}

func TestPlansMatchTheSpec(t *testing.T) {
	d, g, e := Plans[PlanDeveloper], Plans[PlanGrowth], Plans[PlanEnterprise]
	if d.BaseFeeCents != 0 || d.LiveAccess || d.DailyRequests != 100 || d.TestRecordLimit != 50 {
		t.Errorf("developer %+v", d)
	}
	if g.BaseFeeCents != 50000 || g.UnitPriceCents != 200 || !g.LiveAccess || g.DailyRequests != 10000 {
		t.Errorf("growth %+v", g)
	}
	if e.BaseFeeCents != 250000 || e.UnitPriceCents != 150 || e.DailyRequests != 0 || e.TestRecordLimit != 0 || !e.WhiteLabel {
		t.Errorf("enterprise %+v", e)
	}
}
