package e2e

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kycfield/kyc/e2e/harness"
	"github.com/kycfield/kyc/pkg/eventually"
)

// roleStep is one request a viewer is refused for their role and the
// owner then makes. Later steps' paths name what earlier ones made, so
// a path is read when its step runs.
type roleStep struct {
	// route is the request as api/openapi.yaml's audited list names it.
	route string
	// path is the request's path; nil: the route's.
	path   func() string
	body   any
	header []string
	// made reads the owner's answer for the steps after it.
	made func(harness.Response)
	// settles: the owner's request may be answered 4xx for a moment
	// (the gateway learns a plan change from an event) and is retried.
	settles bool
}

func fixed(s string) func() string { return func() string { return s } }

// request is s's method and path.
func (s roleStep) request() (method, path string) {
	method, path, _ = strings.Cut(s.route, " ")
	if s.path != nil {
		path = s.path()
	}
	return method, path
}

// TestRefusalsAreNamedAsTheirChange: for every route a viewer is
// refused (each public-API write and the webhook secret, refused by the
// gateway; the dashboard's role-gated changes, refused by auth-billing),
// the viewer's refused attempt and the owner's change it attempted carry
// one action in the audit log, so an action filter finds both: the one
// api/openapi.yaml's audited list gives the request (which the gateway's
// route table is checked against). Every listed request a role can
// refuse is a step.
func TestRefusalsAreNamedAsTheirChange(t *testing.T) {
	t.Parallel()
	owner := newBrowser(t)
	owner.signUp()
	var me struct{ User struct{ ID string } }
	if owner.call("GET", "/dashboard/v1/me", nil).Decode(t, &me); me.User.ID == "" {
		t.Fatal("the owner's user id")
	}
	viewer := newBrowser(t)
	viewerID, _ := viewer.accept(owner.invite(fmt.Sprintf("viewer%d@lender.ng", rand.Int64()), "viewer"), "Vera Viewer")
	member := newBrowser(t)
	memberID, _ := member.accept(owner.invite(fmt.Sprintf("dev%d@lender.ng", rand.Int64()), "developer"), "Dayo Developer")

	steps := roleSteps(t, memberID)
	documented := auditedRequests(t)
	tried := map[string]bool{}
	for _, s := range steps {
		tried[s.route] = true
	}
	for route := range documented {
		if !tried[route] && !notRoleGated[route] {
			t.Errorf("%s: a role may refuse it, and no step here tries it", route)
		}
	}
	test := []string{"KYC-Environment", "test"}
	for _, s := range steps {
		method, path := s.request()
		hdr := append(slices.Clone(s.header), test...)
		if r := viewer.call(method, path, s.body, hdr...); r.Status != http.StatusForbidden || r.Code() != "ROLE_REQUIRED" {
			t.Fatalf("the viewer's %s: %d %s", s.route, r.Status, r.Body)
		}
		do := func() (harness.Response, bool) {
			r := owner.call(method, path, s.body, hdr...)
			return r, r.Status/100 == 2
		}
		r, ok := do()
		if !ok && s.settles {
			r = eventually.Value(t, 20*time.Second, "the owner's "+s.route, do)
		} else if !ok {
			t.Fatalf("the owner's %s: %d %s", s.route, r.Status, r.Body)
		}
		if s.made != nil {
			s.made(r)
		}
	}

	// The viewer did nothing else the log records as refused; the owner
	// made the two invitations before the steps. Each actor's entries are
	// in step order, so the nth refusal and the nth change are one step's.
	const invitations = 2
	var refused, done []teamAuditEntry
	eventually.True(t, 30*time.Second, "a refusal and a change per step in the audit log", func() bool {
		refused, done = auditOf(t, owner, viewerID, "refused"), auditOf(t, owner, me.User.ID, "done")
		return len(refused) >= len(steps) && len(done) >= len(steps)+invitations
	})
	if len(refused) != len(steps) || len(done) != len(steps)+invitations {
		t.Fatalf("%d steps: %d refusals %v, %d changes %v", len(steps), len(refused), actionsOf(refused), len(done), actionsOf(done))
	}
	slices.Reverse(refused) // oldest first
	slices.Reverse(done)
	done = done[invitations:]
	for i, s := range steps {
		if r, d := refused[i], done[i]; r.Action != d.Action || d.Action != documented[s.route] {
			t.Errorf("%s: refused as %q, done as %q, documented as %q", s.route, r.Action, d.Action, documented[s.route])
		}
	}
}

// notRoleGated are the audited requests no role refuses: signing in,
// a member's own second factor, joining by invitation.
var notRoleGated = map[string]bool{"POST /dashboard/v1/login": true, "POST /dashboard/v1/totp/confirm": true,
	"POST /dashboard/v1/totp/disable": true, "POST /dashboard/v1/invitations/accept": true}

// auditedRow is a row of "Audit log: what is audited" in api/openapi.yaml:
// the action, the request, and whether only refusals are recorded.
var auditedRow = regexp.MustCompile("(?m)^ *\\| `([a-z_.]+)` \\| `([A-Z]+ /[^`]+)`([^|]*)\\|")

// auditedRequests maps each request of the API reference's audited list
// that records changes to its action (a request listed twice, log-in
// with member.sign_in_failed, keeps its first).
func auditedRequests(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, "api", "openapi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, m := range auditedRow.FindAllStringSubmatch(string(b), -1) {
		if out[m[2]] == "" && !strings.Contains(m[3], "`refused` only") {
			out[m[2]] = m[1]
		}
	}
	if len(out) == 0 {
		t.Fatal("api/openapi.yaml: no audited list")
	}
	return out
}

// auditOf is the organization's audit log (all of it: one page) as owner
// reads it, filtered by actor and outcome, newest first.
func auditOf(t *testing.T, owner *browser, actor, outcome string) []teamAuditEntry {
	t.Helper()
	return auditQuery(t, owner, url.Values{"actor": {actor}, "outcome": {outcome}, "limit": {"200"}})
}

// auditQuery is one page of the organization's audit log as owner reads
// it with the filters in q.
func auditQuery(t *testing.T, owner *browser, q url.Values) []teamAuditEntry {
	t.Helper()
	r := owner.call("GET", "/dashboard/v1/audit?"+q.Encode(), nil)
	if r.Status != http.StatusOK {
		t.Fatalf("audit %s: %d %s", q.Encode(), r.Status, r.Body)
	}
	var page struct{ Entries []teamAuditEntry }
	r.Decode(t, &page)
	return page.Entries
}

func actionsOf(es []teamAuditEntry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Action
	}
	return out
}

// roleSteps are every request a viewer is refused, in an order in which
// the owner can make each: the plan first (white labelling needs
// Enterprise), deletions last. member is a developer to change and
// remove.
func roleSteps(t *testing.T, member string) []roleStep {
	var customer, endpoint, delivery, imported, key string
	id := func(into *string) func(harness.Response) {
		return func(r harness.Response) {
			var v struct{ ID string }
			r.Decode(t, &v)
			*into = v.ID
		}
	}
	var rolled struct{ Key struct{ ID string } }
	var invitation struct{ Invitation struct{ ID string } }
	csv, csvType := multipartFile("customers.csv", importCSV("names", 2, nil))
	recv := newHookReceiver(t, nil)
	return []roleStep{
		{route: "PUT /dashboard/v1/plan", body: map[string]any{"plan": "enterprise"}},
		{route: "POST /dashboard/v1/keys", body: map[string]any{"environment": "test", "scopes": []string{"kyc:read"}, "name": "names"},
			made: id(&key)},
		{route: "POST /dashboard/v1/keys/{id}/roll", path: func() string { return "/dashboard/v1/keys/" + key + "/roll" },
			body: map[string]any{"gracePeriodHours": 0}, made: func(r harness.Response) { r.Decode(t, &rolled) }},
		{route: "POST /dashboard/v1/keys/{id}/revoke", path: func() string { return "/dashboard/v1/keys/" + rolled.Key.ID + "/revoke" }},
		{route: "POST /dashboard/v1/invitations", made: func(r harness.Response) { r.Decode(t, &invitation) },
			body: map[string]any{"email": fmt.Sprintf("later%d@lender.ng", rand.Int64()), "role": "viewer"}},
		{route: "DELETE /dashboard/v1/invitations/{id}", path: func() string { return "/dashboard/v1/invitations/" + invitation.Invitation.ID }},
		{route: "PATCH /dashboard/v1/members/{id}", path: fixed("/dashboard/v1/members/" + member), body: map[string]any{"role": "viewer"}},
		{route: "DELETE /dashboard/v1/members/{id}", path: fixed("/dashboard/v1/members/" + member)},

		{route: "POST /api/v1/customers", body: newCustomer(nil), made: id(&customer)},
		{route: "PUT /api/v1/customers/{id}", path: func() string { return "/api/v1/customers/" + customer },
			body: map[string]any{"firstName": "Chiamaka"}},
		{route: "POST /api/v1/customers/{id}/addresses", path: func() string { return "/api/v1/customers/" + customer + "/addresses" },
			body: map[string]any{"streetName": "Allen Avenue", "city": "Ikeja", "state": "Lagos"}},
		{route: "POST /api/v1/customers/{id}/documents", path: func() string { return "/api/v1/customers/" + customer + "/documents" },
			body: docLink("bill.pdf")},
		{route: "POST /api/v1/imports", body: csv, header: []string{"Content-Type", csvType}, made: id(&imported)},
		{route: "POST /api/v1/imports/{id}/start", path: func() string { return "/api/v1/imports/" + imported + "/start" },
			body: map[string]any{"rows": 2}},
		{route: "PUT /api/v1/reports/branding", settles: true,
			body: map[string]any{"displayName": "Names Microfinance", "accentColour": "#7A1FA2"}},
		{route: "POST /api/v1/webhooks", body: map[string]any{"url": recv.URL + "/kyc"}, made: id(&endpoint)},
		{route: "PATCH /api/v1/webhooks/{id}", path: func() string { return "/api/v1/webhooks/" + endpoint }, body: map[string]any{"description": "Ops"}},
		{route: "GET /api/v1/webhooks/{id}/secret", path: func() string { return "/api/v1/webhooks/" + endpoint + "/secret" }},
		{route: "POST /api/v1/webhooks/{id}/rotate-secret", path: func() string { return "/api/v1/webhooks/" + endpoint + "/rotate-secret" }},
		{route: "POST /api/v1/webhooks/{id}/test", path: func() string { return "/api/v1/webhooks/" + endpoint + "/test" }, made: id(&delivery)},
		{route: "POST /api/v1/webhooks/{id}/deliveries/{deliveryId}/retry",
			path: func() string { return "/api/v1/webhooks/" + endpoint + "/deliveries/" + delivery + "/retry" }},
		{route: "POST /api/v1/webhooks/{id}/recover", path: func() string { return "/api/v1/webhooks/" + endpoint + "/recover" },
			body: map[string]any{"since": time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)}},
		{route: "DELETE /api/v1/webhooks/{id}", path: func() string { return "/api/v1/webhooks/" + endpoint }},
		{route: "DELETE /api/v1/customers/{id}", path: func() string { return "/api/v1/customers/" + customer }},
	}
}

// multipartFile is a form with one file part, and its Content-Type.
func multipartFile(name string, b []byte) ([]byte, string) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("file", name)
	_, _ = fw.Write(b)
	_ = mw.Close()
	return body.Bytes(), mw.FormDataContentType()
}
