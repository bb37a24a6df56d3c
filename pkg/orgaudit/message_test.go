package orgaudit

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/kycfield/kyc/pkg/principal"
)

// Message builds what Record writes, without writing it: keyed and
// scoped by the caller's organization and environment, naming a member
// with its role or a key without one; a caller who is neither is refused.
func TestMessageNamesTheCaller(t *testing.T) {
	member := principal.Principal{Kind: principal.KindAPIKey, OrgID: "org_1", Env: principal.EnvLive, UserID: "usr_1",
		MemberRole: principal.MemberAdmin, ClientIP: "203.0.113.7"}
	key := principal.Principal{Kind: principal.KindAPIKey, OrgID: "org_1", Env: principal.EnvTest, KeyID: "key_1", ClientIP: "198.51.100.4"}
	for _, c := range []struct {
		p                      principal.Principal
		actorType, actor, role string
	}{{member, ActorUser, "usr_1", "admin"}, {key, ActorKey, "key_1", ""}} {
		m, err := Message(principal.With(context.Background(), c.p), "t1.org-audit", "customer.create", "cus_1", Done, map[string]any{"addresses": 1})
		if err != nil {
			t.Fatal(err)
		}
		if m.Topic != "t1.org-audit" || m.Key != "org_1" || m.Event.Type != Type || m.Event.OrgID != "org_1" || m.Event.Environment != string(c.p.Env) {
			t.Errorf("message %+v", m)
		}
		var a Action
		if err := json.Unmarshal(m.Event.Data, &a); err != nil {
			t.Fatal(err)
		}
		if a.ActorType != c.actorType || a.ActorID != c.actor || a.MemberRole != c.role || a.Action != "customer.create" || a.Target != "cus_1" ||
			a.Outcome != Done || a.IP != c.p.ClientIP || a.At.IsZero() || a.Details["addresses"] != float64(1) {
			t.Errorf("action %+v", a)
		}
	}
	for _, p := range []principal.Principal{
		{Kind: principal.KindAPIKey, OrgID: "org_1", Env: principal.EnvTest}, // neither a member nor a key
		{Kind: principal.KindStaff, StaffID: "stf_1", Role: principal.RoleAdmin},
		{Kind: principal.KindService, OrgID: "org_1", Env: principal.EnvTest},
	} {
		if _, err := Message(principal.With(context.Background(), p), "t", "customer.create", "cus_1", Done, nil); !errors.Is(err, ErrNoActor) {
			t.Errorf("%+v: %v, want ErrNoActor", p, err)
		}
	}
	if _, err := Message(context.Background(), "t", "customer.create", "cus_1", Done, nil); !errors.Is(err, ErrNoActor) {
		t.Errorf("no principal: %v", err)
	}
}
