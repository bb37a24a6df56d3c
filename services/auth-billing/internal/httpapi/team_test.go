package httpapi_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

const missingUser = "usr_0123456789abcdef0123456789abcdef"
const missingKey = "key_0123456789abcdef0123456789abcdef"
const missingInvitation = "inv_0123456789abcdef0123456789abcdef"

// Every dashboard route against every role: a role below the route's
// minimum gets 403 ROLE_REQUIRED, any other gets past the role check
// (whatever the route then answers). The calls are chosen to change
// nothing another row relies on: unknown ids, the plan the organization
// already has, a body the route refuses.
func TestRoleMatrix(t *testing.T) {
	t.Parallel()
	f := newTeamFixture(t)
	owner := f.owner()
	members := map[string]*member{"owner": owner, "admin": owner.join("admin"), "developer": owner.join("developer"), "viewer": owner.join("viewer")}
	rank := map[string]int{"owner": 0, "admin": 1, "developer": 2, "viewer": 3}
	for _, rt := range []struct {
		method, path string
		body         any
		min          string
	}{
		{"GET", "/dashboard/v1/me", nil, "viewer"},
		{"GET", "/dashboard/v1/members", nil, "viewer"},
		{"GET", "/dashboard/v1/plan", nil, "viewer"},
		{"GET", "/dashboard/v1/plan/preview?plan=growth", nil, "viewer"},
		{"GET", "/dashboard/v1/usage", nil, "viewer"},
		{"GET", "/dashboard/v1/keys", nil, "developer"},
		{"POST", "/dashboard/v1/keys", map[string]any{"environment": "test", "scopes": []string{"kyc:read"}}, "developer"},
		{"POST", "/dashboard/v1/keys/" + missingKey + "/revoke", nil, "developer"},
		{"POST", "/dashboard/v1/keys/" + missingKey + "/roll", map[string]any{}, "developer"},
		{"PUT", "/dashboard/v1/plan", map[string]any{"plan": "developer"}, "admin"},
		{"POST", "/dashboard/v1/invitations", map[string]any{}, "admin"},
		{"DELETE", "/dashboard/v1/invitations/" + missingInvitation, nil, "admin"},
		{"PATCH", "/dashboard/v1/members/" + missingUser, map[string]any{"role": "viewer"}, "admin"},
		{"DELETE", "/dashboard/v1/members/" + missingUser, nil, "admin"},
		{"GET", "/dashboard/v1/audit", nil, "admin"},
	} {
		for role, m := range members {
			a := m.call(rt.method, rt.path, rt.body)
			refused := a.Status == http.StatusForbidden && a.code() == "ROLE_REQUIRED"
			if want := rank[role] > rank[rt.min]; refused != want {
				t.Errorf("%s %s as %s: %d %s; want refused=%v", rt.method, rt.path, role, a.Status, a.Body, want)
			}
		}
	}
	// A viewer's key list is refused outright: no prefix leaks.
	if a := members["viewer"].call("GET", "/dashboard/v1/keys", nil); strings.Contains(string(a.Body), "mk_test_") {
		t.Fatalf("a viewer saw key material: %s", a.Body)
	}
}

func TestInvitationLifecycle(t *testing.T) {
	t.Parallel()
	f := newTeamFixture(t)
	owner := f.owner()
	email := newEmail("viewer")
	tok, a := owner.invite(strings.ToUpper(email), "viewer")
	if tok == "" {
		t.Fatalf("invite: %d %s", a.Status, a.Body)
	}
	var created struct {
		Invitation struct{ ID, Email, Role, CreatedAt, ExpiresAt string }
	}
	a.decode(t, &created)
	exp, _ := time.Parse(time.RFC3339, created.Invitation.ExpiresAt)
	cr, _ := time.Parse(time.RFC3339, created.Invitation.CreatedAt)
	if created.Invitation.Email != email || created.Invitation.Role != "viewer" || exp.Sub(cr).Round(time.Second) != 7*24*time.Hour {
		t.Fatalf("invitation: %s", a.Body)
	}
	var stored int
	if err := f.pool.QueryRow(context.Background(), `SELECT count(*) FROM invitations WHERE token_hash = $1`, []byte(tok)).Scan(&stored); err != nil || stored != 0 {
		t.Fatalf("the token itself is stored: %d %v", stored, err)
	}
	// The members list shows it to admins, never its token.
	list := owner.call("GET", "/dashboard/v1/members", nil)
	if !strings.Contains(string(list.Body), created.Invitation.ID) || strings.Contains(string(list.Body), tok) {
		t.Fatalf("members: %s", list.Body)
	}

	anon := f.browser()
	look := anon.call("POST", "/dashboard/v1/invitations/lookup", map[string]any{"token": tok})
	var info struct{ OrganizationName, Email, Role string }
	look.decode(t, &info)
	if look.Status != http.StatusOK || info.OrganizationName != "Acme Lending" || info.Email != email || info.Role != "viewer" {
		t.Fatalf("lookup: %d %s", look.Status, look.Body)
	}
	if a := anon.call("POST", "/dashboard/v1/invitations/accept", map[string]any{"token": tok, "name": "Vee", "password": "password1"}); a.Status != http.StatusBadRequest {
		t.Fatalf("a short name and a common password: %d %s", a.Status, a.Body)
	}

	// Accepted by many at once: one user, every other answer 410.
	var wg sync.WaitGroup
	statuses := make([]int, 6)
	browsers := make([]*member, 6)
	for i := range statuses {
		browsers[i] = f.browser()
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = browsers[i].call("POST", "/dashboard/v1/invitations/accept", map[string]any{"token": tok, "name": "Vera Viewer", "password": testPassword}).Status
		}()
	}
	wg.Wait()
	var ok, gone int
	for _, s := range statuses {
		switch s {
		case http.StatusCreated:
			ok++
		case http.StatusGone:
			gone++
		}
	}
	var users int
	if err := f.pool.QueryRow(context.Background(), `SELECT count(*) FROM users WHERE email = $1`, email).Scan(&users); err != nil || ok != 1 || gone != 5 || users != 1 {
		t.Fatalf("concurrent accepts: %v; %d users (%v)", statuses, users, err)
	}
	for _, path := range []string{"lookup", "accept"} {
		body := func(tok string) map[string]any {
			if path == "lookup" {
				return map[string]any{"token": tok}
			}
			return map[string]any{"token": tok, "name": "Again", "password": testPassword}
		}
		if a := anon.call("POST", "/dashboard/v1/invitations/"+path, body(tok)); a.Status != http.StatusGone || a.code() != "INVITATION_USED" {
			t.Fatalf("%s a used link: %d %s", path, a.Status, a.Body)
		}
		if a := anon.call("POST", "/dashboard/v1/invitations/"+path, body("not-a-token")); a.Status != http.StatusNotFound || a.code() != "INVITATION_NOT_FOUND" {
			t.Fatalf("%s an unknown link: %d %s", path, a.Status, a.Body)
		}
	}

	// Revoked.
	revoked, _ := owner.invite(newEmail("dev"), "developer")
	var inv struct{ Invitations []struct{ ID, Email string } }
	owner.call("GET", "/dashboard/v1/members", nil).decode(t, &inv)
	if len(inv.Invitations) != 1 {
		t.Fatalf("pending: %+v", inv)
	}
	if a := owner.call("DELETE", "/dashboard/v1/invitations/"+inv.Invitations[0].ID, nil); a.Status != http.StatusOK {
		t.Fatalf("revoke: %d %s", a.Status, a.Body)
	}
	if a := anon.call("POST", "/dashboard/v1/invitations/lookup", map[string]any{"token": revoked}); a.Status != http.StatusGone || a.code() != "INVITATION_REVOKED" {
		t.Fatalf("a revoked link: %d %s", a.Status, a.Body)
	}

	// Expired after seven days.
	late, _ := owner.invite(newEmail("late"), "developer")
	f.clock.Advance(7*24*time.Hour + time.Second)
	if a := anon.call("POST", "/dashboard/v1/invitations/accept", map[string]any{"token": late, "name": "Late Comer", "password": testPassword}); a.Status != http.StatusGone || a.code() != "INVITATION_EXPIRED" {
		t.Fatalf("an expired link: %d %s", a.Status, a.Body)
	}
	f.clock.Advance(-7*24*time.Hour - time.Second)

	// An email with an account already: refused at invitation, and at
	// acceptance when the account came after the invitation.
	if _, a := owner.invite(owner.email, "viewer"); a.Status != http.StatusConflict || a.code() != "EMAIL_TAKEN" {
		t.Fatalf("invite a member's email: %d %s", a.Status, a.Body)
	}
	taken := newEmail("taken")
	tok2, _ := owner.invite(taken, "viewer")
	other := f.browser()
	other.signedIn(other.call("POST", "/dashboard/v1/signup", map[string]any{"organizationName": "Other Lender", "email": taken, "password": testPassword}), http.StatusCreated)
	if a := anon.call("POST", "/dashboard/v1/invitations/accept", map[string]any{"token": tok2, "name": "Tak En", "password": testPassword}); a.Status != http.StatusConflict || a.code() != "EMAIL_TAKEN" {
		t.Fatalf("accept with a registered email: %d %s", a.Status, a.Body)
	}

	// Only an owner invites an owner.
	admin := owner.join("admin")
	if _, a := admin.invite(newEmail("boss"), "owner"); a.Status != http.StatusForbidden || a.code() != "ROLE_REQUIRED" {
		t.Fatalf("an admin invites an owner: %d %s", a.Status, a.Body)
	}
	if tok, a := owner.invite(newEmail("boss"), "owner"); tok == "" {
		t.Fatalf("an owner invites an owner: %d %s", a.Status, a.Body)
	}
	// A viewer's member list has no invitations.
	viewer := owner.join("viewer")
	var vlist struct {
		Members     []struct{ ID, Email, Name, Role string }
		Invitations []any
	}
	viewer.call("GET", "/dashboard/v1/members", nil).decode(t, &vlist)
	if len(vlist.Members) != 4 || vlist.Invitations == nil || len(vlist.Invitations) != 0 {
		t.Fatalf("a viewer's list: %+v", vlist)
	}
}

func TestOwnersRolesAndRemoval(t *testing.T) {
	t.Parallel()
	f := newTeamFixture(t)
	owner := f.owner()
	admin, dev := owner.join("admin"), owner.join("developer")

	patch := func(m *member, id, role string) answer {
		return m.call("PATCH", "/dashboard/v1/members/"+id, map[string]any{"role": role})
	}
	if a := patch(owner, owner.id, "admin"); a.Status != http.StatusConflict || a.code() != "LAST_OWNER" {
		t.Fatalf("the last owner steps down: %d %s", a.Status, a.Body)
	}
	if a := owner.call("DELETE", "/dashboard/v1/members/"+owner.id, nil); a.Status != http.StatusConflict || a.code() != "LAST_OWNER" {
		t.Fatalf("the last owner leaves: %d %s", a.Status, a.Body)
	}
	if a := patch(admin, owner.id, "viewer"); a.Status != http.StatusForbidden || a.code() != "ROLE_REQUIRED" {
		t.Fatalf("an admin demotes an owner: %d %s", a.Status, a.Body)
	}
	if a := patch(admin, dev.id, "owner"); a.Status != http.StatusForbidden || a.code() != "ROLE_REQUIRED" {
		t.Fatalf("an admin makes an owner: %d %s", a.Status, a.Body)
	}
	if a := patch(owner, admin.id, "superuser"); a.Status != http.StatusBadRequest {
		t.Fatalf("an unknown role: %d %s", a.Status, a.Body)
	}
	if a := patch(owner, admin.id, "owner"); a.Status != http.StatusOK {
		t.Fatalf("an owner makes an owner: %d %s", a.Status, a.Body)
	}
	if a := patch(owner, owner.id, "admin"); a.Status != http.StatusOK {
		t.Fatalf("with another owner, stepping down: %d %s", a.Status, a.Body)
	}

	// A role change applies from the member's next request, same session.
	if a := dev.call("GET", "/dashboard/v1/keys", nil); a.Status != http.StatusOK {
		t.Fatalf("a developer's keys: %d %s", a.Status, a.Body)
	}
	if a := patch(owner, dev.id, "viewer"); a.Status != http.StatusOK {
		t.Fatalf("demote: %d %s", a.Status, a.Body)
	}
	if a := dev.call("GET", "/dashboard/v1/keys", nil); a.Status != http.StatusForbidden || a.code() != "ROLE_REQUIRED" {
		t.Fatalf("the demoted member's next request: %d %s", a.Status, a.Body)
	}
	var me struct{ Role string }
	dev.call("GET", "/dashboard/v1/me", nil).decode(t, &me)
	if me.Role != "viewer" {
		t.Fatalf("me.role %q", me.Role)
	}

	// Removal ends the member's sessions at once; another organization's
	// member is not found.
	if a := owner.call("DELETE", "/dashboard/v1/members/"+dev.id, nil); a.Status != http.StatusOK {
		t.Fatalf("remove: %d %s", a.Status, a.Body)
	}
	if a := dev.call("GET", "/dashboard/v1/me", nil); a.Status != http.StatusUnauthorized || a.code() != "SESSION_REQUIRED" {
		t.Fatalf("the removed member's session: %d %s", a.Status, a.Body)
	}
	stranger := f.owner()
	if a := owner.call("DELETE", "/dashboard/v1/members/"+stranger.id, nil); a.Status != http.StatusNotFound {
		t.Fatalf("another organization's member: %d %s", a.Status, a.Body)
	}
	// Two owners demoting each other at once leave one owner.
	if a := patch(admin, owner.id, "owner"); a.Status != http.StatusOK {
		t.Fatalf("re-promote: %d %s", a.Status, a.Body)
	}
	var wg sync.WaitGroup
	res := make([]int, 2)
	for i, pair := range [][2]*member{{admin, owner}, {owner, admin}} {
		wg.Add(1)
		go func() { defer wg.Done(); res[i] = patch(pair[0], pair[1].id, "admin").Status }()
	}
	wg.Wait()
	var owners int
	if err := f.pool.QueryRow(context.Background(), `SELECT count(*) FROM users u JOIN users o ON o.org_id = u.org_id WHERE o.id = $1 AND u.role = 'owner'`, owner.id).Scan(&owners); err != nil || owners < 1 {
		t.Fatalf("owners left: %d %v (%v)", owners, err, res)
	}
}
