package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/pkg/orgaudit"
	"github.com/kycfield/kyc/services/auth-billing/internal/postgres"
)

type auditPage struct {
	Entries []struct {
		ID, At, Action, Outcome string
		Environment, Target, IP *string
		Actor                   struct {
			Type, ID         string
			Email, KeyPrefix *string
			Role             *string
		}
		Details map[string]any
	}
	NextCursor *string
}

func (m *member) audit(t *testing.T, q url.Values) auditPage {
	t.Helper()
	a := m.call("GET", "/dashboard/v1/audit?"+q.Encode(), nil)
	if a.Status != http.StatusOK {
		t.Fatalf("audit %s: %d %s", q.Encode(), a.Status, a.Body)
	}
	var p auditPage
	a.decode(t, &p)
	return p
}

// The audit log: every change and every refusal, by whom (email, role,
// address), filtered, paged newest first; a redelivered event is one row,
// and no row can be changed or deleted.
func TestOrgAuditLog(t *testing.T) {
	t.Parallel()
	f := newTeamFixture(t)
	ctx := context.Background()
	owner := f.owner()
	dev, viewer := owner.join("developer"), owner.join("viewer")
	if a := viewer.call("POST", "/dashboard/v1/keys", map[string]any{"environment": "test", "scopes": []string{"kyc:read"}}); a.Status != http.StatusForbidden || a.code() != "ROLE_REQUIRED" {
		t.Fatalf("a viewer creates a key: %d %s", a.Status, a.Body)
	}
	created := dev.call("POST", "/dashboard/v1/keys", map[string]any{"environment": "test", "scopes": []string{"kyc:read"}, "name": "backend"})
	var key struct{ ID string }
	created.decode(t, &key)
	if created.Status != http.StatusCreated {
		t.Fatalf("a developer creates a key: %d %s", created.Status, created.Body)
	}
	if a := dev.call("POST", "/dashboard/v1/keys/"+key.ID+"/revoke", nil); a.Status != http.StatusOK {
		t.Fatalf("revoke: %d %s", a.Status, a.Body)
	}
	f.clock.Advance(time.Second) // a plan period starts at a new instant
	if a := owner.call("PUT", "/dashboard/v1/plan", map[string]any{"plan": "growth"}); a.Status != http.StatusOK {
		t.Fatalf("plan: %d %s", a.Status, a.Body)
	}
	if a := viewer.call("GET", "/dashboard/v1/audit", nil); a.Status != http.StatusForbidden {
		t.Fatalf("a viewer reads the audit log: %d %s", a.Status, a.Body)
	}
	evs := f.consumeAudit()

	all := owner.audit(t, nil)
	var actions []string
	for _, e := range all.Entries {
		actions = append(actions, e.Action+":"+e.Outcome)
	}
	// Newest first: sign-ups are not audited; each join and invite is.
	want := "audit.read:refused,plan.change:done,key.revoke:done,key.create:done,key.create:refused," +
		"member.join:done,member.invite:done,member.join:done,member.invite:done"
	if strings.Join(actions, ",") != want {
		t.Fatalf("log:\n got %s\nwant %s", strings.Join(actions, ","), want)
	}
	refused := owner.audit(t, url.Values{"outcome": {"refused"}, "action": {"key."}})
	if len(refused.Entries) != 1 {
		t.Fatalf("refused key actions: %+v", refused)
	}
	r := refused.Entries[0]
	if r.Actor.Type != "user" || r.Actor.ID != viewer.id || r.Actor.Email == nil || *r.Actor.Email != viewer.email ||
		r.Actor.Role == nil || *r.Actor.Role != "viewer" || r.IP == nil || *r.IP != viewer.ip || r.Actor.KeyPrefix != nil {
		b, _ := json.Marshal(r)
		t.Fatalf("the refused attempt: %s", b)
	}
	byDev := owner.audit(t, url.Values{"actor": {dev.id}})
	if len(byDev.Entries) != 3 || byDev.Entries[1].Action != "key.create" || byDev.Entries[1].Environment == nil || *byDev.Entries[1].Environment != "test" {
		t.Fatalf("the developer's actions: %+v", byDev)
	}
	if p := owner.audit(t, url.Values{"environment": {"live"}}); len(p.Entries) != 0 {
		t.Fatalf("live: %+v", p)
	}
	// Pages of two, newest first, to the end.
	var paged []string
	q := url.Values{"limit": {"2"}}
	for range 10 {
		p := owner.audit(t, q)
		for _, e := range p.Entries {
			paged = append(paged, e.Action+":"+e.Outcome)
		}
		if p.NextCursor == nil {
			break
		}
		q.Set("cursor", *p.NextCursor)
	}
	if strings.Join(paged, ",") != want {
		t.Fatalf("paged: %v", paged)
	}
	if a := owner.call("GET", "/dashboard/v1/audit?outcome=maybe&limit=500&environment=prod&from=yesterday", nil); a.Status != http.StatusBadRequest {
		t.Fatalf("bad filters: %d %s", a.Status, a.Body)
	}
	// Another organization sees none of it.
	if p := f.owner().audit(t, nil); len(p.Entries) != 0 {
		t.Fatalf("another organization's log: %+v", p)
	}

	// A redelivery, past the inbox too, is one row.
	err := pgx.BeginFunc(ctx, f.pool, func(tx pgx.Tx) error {
		var a orgaudit.Action
		if err := json.Unmarshal(evs[0].Data, &a); err != nil {
			return err
		}
		return postgres.InsertOrgAudit(ctx, tx, evs[0].ID, evs[0].OrgID, evs[0].Environment, a)
	})
	if err != nil {
		t.Fatal(err)
	}
	f.consumeAudit()
	var n int
	if err := f.pool.QueryRow(ctx, `SELECT count(*) FROM org_audit`).Scan(&n); err != nil || n != len(evs) {
		t.Fatalf("%d rows after redelivery, want %d (%v)", n, len(evs), err)
	}
	for _, q := range []string{`UPDATE org_audit SET outcome = 'done'`, `DELETE FROM org_audit`, `TRUNCATE org_audit`} {
		if _, err := f.pool.Exec(ctx, q); err == nil || !strings.Contains(err.Error(), "append-only") {
			t.Errorf("%s: %v", q, err)
		}
	}
}

// Sign-ins are audited, and so are wrong passwords for a member's email
// (refused, in a transaction of their own); an unknown email has no
// organization to tell.
func TestSignInsAreAudited(t *testing.T) {
	t.Parallel()
	f := newTeamFixture(t)
	owner := f.owner()
	b := f.browser()
	if a := b.call("POST", "/dashboard/v1/login", map[string]any{"email": owner.email, "password": "wrong horse battery"}); a.Status != http.StatusUnauthorized {
		t.Fatalf("a wrong password: %d %s", a.Status, a.Body)
	}
	if a := b.call("POST", "/dashboard/v1/login", map[string]any{"email": "nobody@lender.example", "password": testPassword}); a.Status != http.StatusUnauthorized {
		t.Fatalf("an unknown email: %d %s", a.Status, a.Body)
	}
	b.signedIn(b.call("POST", "/dashboard/v1/login", map[string]any{"email": owner.email, "password": testPassword}), http.StatusOK)
	f.consumeAudit()
	p := owner.audit(t, url.Values{"action": {"member.sign_in"}})
	if len(p.Entries) != 2 || p.Entries[0].Action != "member.sign_in" || p.Entries[0].Outcome != "done" ||
		p.Entries[1].Action != "member.sign_in_failed" || p.Entries[1].Outcome != "refused" || p.Entries[1].Details["reason"] != "password" ||
		*p.Entries[1].IP != b.ip || *p.Entries[1].Actor.Email != owner.email {
		got, _ := json.Marshal(p)
		t.Fatalf("sign-ins: %s", got)
	}
}
