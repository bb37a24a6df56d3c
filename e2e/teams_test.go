package e2e

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/kycfield/kyc/pkg/eventually"
)

// teamAuditEntry is one entry of GET /dashboard/v1/audit.
type teamAuditEntry struct {
	ID, At, Action, Outcome string
	Environment, Target, IP *string
	Actor                   struct {
		Type, ID         string
		Email, KeyPrefix *string
		Role             *string
	}
	Details map[string]any
}

// invite makes an invitation as b (an admin or owner) and returns the
// token of its link.
func (b *browser) invite(email, role string) string {
	b.t.Helper()
	r := b.call("POST", "/dashboard/v1/invitations", map[string]any{"email": email, "role": role})
	if r.Status != http.StatusCreated {
		b.t.Fatalf("invite %s as %s: %d %s", email, role, r.Status, r.Body)
	}
	var d struct {
		Invitation struct{ ID, Email, Role string }
		Link       string
	}
	r.Decode(b.t, &d)
	_, frag, ok := strings.Cut(d.Link, "/dashboard/#invite=")
	if !ok || d.Invitation.Role != role {
		b.t.Fatalf("invitation: %s", r.Body)
	}
	tok, err := url.QueryUnescape(frag)
	if err != nil {
		b.t.Fatal(err)
	}
	return tok
}

// accept opens an invitation link as b (no session yet) and joins.
func (b *browser) accept(token, name string) (id, email string) {
	b.t.Helper()
	look := b.call("POST", "/dashboard/v1/invitations/lookup", map[string]any{"token": token})
	if look.Status != http.StatusOK {
		b.t.Fatalf("lookup: %d %s", look.Status, look.Body)
	}
	r := b.call("POST", "/dashboard/v1/invitations/accept", map[string]any{"token": token, "name": name, "password": "correct horse battery"})
	if r.Status != http.StatusCreated || !strings.Contains(r.Header.Get("Set-Cookie"), "kyc_session=") {
		b.t.Fatalf("accept: %d %s", r.Status, r.Body)
	}
	var d struct {
		CSRFToken string `json:"csrfToken"`
		User      struct{ ID, Email string }
	}
	r.Decode(b.t, &d)
	b.csrf = d.CSRFToken
	return d.User.ID, d.User.Email
}

// TestTeamsRolesAndAudit: an owner invites a viewer and a developer by
// link; the viewer is refused key management and webhook writes (from
// the dashboard and, with the session, on the public API), the developer
// creates a key, and the owner's audit log shows both, filtered by actor
// and outcome, with the viewer's email and address. The viewer cannot
// read the log.
func TestTeamsRolesAndAudit(t *testing.T) {
	t.Parallel()
	owner := newBrowser(t)
	owner.signUp()
	viewerEmail, devEmail := fmt.Sprintf("viewer%d@lender.ng", rand.Int64()), fmt.Sprintf("dev%d@lender.ng", rand.Int64())
	viewerToken, devToken := owner.invite(viewerEmail, "viewer"), owner.invite(devEmail, "developer")

	viewer, viewerIP := newBrowserFrom(t)
	viewerID, _ := viewer.accept(viewerToken, "Vera Viewer")
	dev := newBrowser(t)
	devID, _ := dev.accept(devToken, "Dayo Developer")
	if r := viewer.call("POST", "/dashboard/v1/invitations/accept", map[string]any{"token": viewerToken, "name": "Vera Again", "password": "correct horse battery"}); r.Status != http.StatusGone {
		t.Fatalf("a used link: %d %s", r.Status, r.Body)
	}

	// The viewer: no key management, not even the list.
	if r, _ := viewer.createKey("test"); r.Status != http.StatusForbidden || r.Code() != "ROLE_REQUIRED" {
		t.Fatalf("a viewer creates a key: %d %s", r.Status, r.Body)
	}
	if r := viewer.call("GET", "/dashboard/v1/keys", nil); r.Status != http.StatusForbidden || r.Code() != "ROLE_REQUIRED" {
		t.Fatalf("a viewer lists keys: %d %s", r.Status, r.Body)
	}
	// Nor webhook writes or secrets on the public API with the session,
	// while reads work.
	test := []string{"KYC-Environment", "test"}
	if r := viewer.call("POST", "/api/v1/webhooks", map[string]any{"url": "https://hooks.example.com/kyc"}, test...); r.Status != http.StatusForbidden {
		t.Fatalf("a viewer creates a webhook: %d %s", r.Status, r.Body)
	}
	if r := viewer.call("GET", "/api/v1/webhooks/whk_0123456789abcdef0123456789abcdef/secret", nil, test...); r.Status != http.StatusForbidden {
		t.Fatalf("a viewer reads a webhook secret: %d %s", r.Status, r.Body)
	}
	if r := viewer.call("GET", "/api/v1/customers", nil, test...); r.Status != http.StatusOK {
		t.Fatalf("a viewer lists customers: %d %s", r.Status, r.Body)
	}

	// The developer creates a key.
	r, key := dev.createKey("test")
	if r.Status != http.StatusCreated || key.ID == "" {
		t.Fatalf("a developer creates a key: %d %s", r.Status, r.Body)
	}

	// The owner's audit log, filtered by the viewer and refusals.
	audit := func(q url.Values) []teamAuditEntry { return auditQuery(t, owner, q) }
	find := func(es []teamAuditEntry, action, outcome string) *teamAuditEntry {
		for i := range es {
			if es[i].Action == action && es[i].Outcome == outcome {
				return &es[i]
			}
		}
		return nil
	}
	refused := eventually.Value(t, 20*time.Second, "the viewer's refusals in the audit log", func() ([]teamAuditEntry, bool) {
		es := audit(url.Values{"actor": {viewerID}, "outcome": {"refused"}})
		return es, find(es, "key.create", "refused") != nil && find(es, "key.list", "refused") != nil &&
			find(es, "endpoint.create", "refused") != nil && find(es, "endpoint.secret_read", "refused") != nil
	})
	kc := find(refused, "key.create", "refused")
	if kc.Actor.Type != "user" || kc.Actor.Email == nil || *kc.Actor.Email != viewerEmail || kc.Actor.Role == nil || *kc.Actor.Role != "viewer" ||
		kc.IP == nil || *kc.IP != viewerIP {
		t.Fatalf("the viewer's refused key.create: %+v (actor %+v)", kc, kc.Actor)
	}
	for _, e := range refused {
		if e.Outcome != "refused" || e.Actor.ID != viewerID {
			t.Fatalf("the filter let through %+v", e)
		}
	}
	created := eventually.Value(t, 20*time.Second, "the developer's key.create in the audit log", func() ([]teamAuditEntry, bool) {
		es := audit(url.Values{"actor": {devID}, "outcome": {"done"}})
		return es, find(es, "key.create", "done") != nil
	})
	if e := find(created, "key.create", "done"); e.Target == nil || *e.Target != key.ID || e.Environment == nil || *e.Environment != "test" {
		t.Fatalf("the developer's key.create: %+v", e)
	}

	// The viewer cannot read the log.
	if r := viewer.call("GET", "/dashboard/v1/audit", nil); r.Status != http.StatusForbidden || r.Code() != "ROLE_REQUIRED" {
		t.Fatalf("a viewer reads the audit log: %d %s", r.Status, r.Body)
	}
}
