package httpapi_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/kycfield/kyc/pkg/ids"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/services/verification/internal/verification"
)

// staff is a call by a member of the operations staff with role, as the
// gateway's AuthStaff routes sign it.
func (f fixture) staff(t *testing.T, role principal.Role, method, path string, body any) response {
	t.Helper()
	return f.do(t, request{method: method, path: path, kind: principal.KindStaff, role: role, body: body})
}

// openIn starts verifying a customer of org in env with one address in
// state and lga, and returns the address id.
func (f fixture) openIn(t *testing.T, org, env, state, lga string) string {
	t.Helper()
	adr := ids.New("adr")
	in := verification.CaseInput{CustomerID: ids.New("cus"), OrgID: org, Env: env, FirstName: "Chiamaka", LastName: "Eze",
		Phone: "+2348031234567", LoanType: "PERSONAL",
		Addresses: []verification.AddressInput{{ID: adr, Address: verification.Address{StreetNumber: "7",
			StreetName: "Awolowo Road", City: lga, LGA: lga, State: state, Country: "Nigeria"}}}}
	ctx := context.Background()
	if err := f.store.Atomic(ctx, func(tx verification.Tx) error { return f.svc.Open(ctx, tx, in) }); err != nil {
		t.Fatal(err)
	}
	return adr
}

// orgSettings announces an organization's name and SLA target as
// auth-billing's event would.
func (f fixture) orgSettings(t *testing.T, org, name string, sla time.Duration, version int64) {
	t.Helper()
	ctx := context.Background()
	err := f.store.Atomic(ctx, func(tx verification.Tx) error {
		return f.svc.SaveOrgSettings(ctx, tx, verification.OrgSettings{OrgID: org, Name: name, SLA: sla, Version: version})
	})
	if err != nil {
		t.Fatal(err)
	}
}

type queueItem struct {
	AddressID, CustomerID, OrgID, OrganizationName, CustomerName, AddressLine, State, Status string
	LGA                                                                                      *string
	Agent                                                                                    *struct{ ID, Name string }
	CreatedAt, DueBy                                                                         time.Time
	Overdue, DueToday                                                                        bool
}

type queuePage struct {
	Items      []queueItem
	Summary    struct{ Total, Overdue, DueToday int }
	NextCursor *string
}

func (f fixture) queue(t *testing.T, query string) queuePage {
	t.Helper()
	r := f.staff(t, principal.RoleReviewer, "GET", "/ops/v1/queue?"+query, nil)
	expect(t, "queue "+query, r, http.StatusOK, "")
	var p queuePage
	r.data(t, &p)
	return p
}

func addressIDs(items []queueItem) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.AddressID
	}
	return out
}

func TestOpsQueueFiltersPromisesAndScope(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ada, bola := ids.New("org"), ids.New("org")
	f.orgSettings(t, ada, "Ada Loans", 24*time.Hour, 1)
	ikeja := f.openIn(t, ada, verification.EnvLive, "Lagos", "Ikeja")
	kano := f.openIn(t, ada, verification.EnvLive, "Kano", "Albasu")
	surulere := f.openIn(t, bola, verification.EnvLive, "Lagos", "Surulere")
	sandbox := f.openIn(t, ada, verification.EnvTest, "Lagos", "Ikeja")

	all := f.queue(t, "")
	if got := addressIDs(all.Items); len(got) != 3 || got[2] != surulere {
		t.Fatalf("queue: want Ada's two (24 h) before Bola's (72 h), no sandbox address; got %v", got)
	}
	for _, it := range all.Items {
		if it.AddressID == sandbox {
			t.Fatal("a sandbox address is in the queue")
		}
		want := 24 * time.Hour
		if it.OrgID == bola {
			want = verification.DefaultSLA
		}
		if d := it.DueBy.Sub(it.CreatedAt); d != want {
			t.Fatalf("%s: dueBy is created + %s, want + %s", it.AddressID, d, want)
		}
		if it.Status != "PENDING" || it.Agent != nil || it.Overdue || it.CustomerName != "Chiamaka Eze" {
			t.Fatalf("item: %+v", it)
		}
	}
	if it := all.Items[0]; it.OrganizationName != "Ada Loans" || it.LGA == nil || it.AddressLine == "" {
		t.Fatalf("first item: %+v", it)
	}
	if all.Summary.Total != 3 || all.Summary.Overdue != 0 {
		t.Fatalf("summary: %+v", all.Summary)
	}

	// A later SLA change keeps the promises made and sets the next ones.
	f.orgSettings(t, ada, "Ada Loans", 48*time.Hour, 2)
	later := f.openIn(t, ada, verification.EnvLive, "Lagos", "Ikeja")
	for _, it := range f.queue(t, "orgId="+ada).Items {
		want := 24 * time.Hour
		if it.AddressID == later {
			want = 48 * time.Hour
		}
		if d := it.DueBy.Sub(it.CreatedAt); d != want {
			t.Fatalf("after the SLA change, %s is due created + %s, want + %s", it.AddressID, d, want)
		}
	}

	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"state=Lagos", []string{ikeja, later, surulere}},
		{"state=lagos+state&lga=ikeja", []string{ikeja, later}},
		{"state=Kano", []string{kano}},
		{"orgId=" + bola, []string{surulere}},
		{"status=ASSIGNED", nil},
		{"agentId=" + ids.New("agt"), nil},
		{"olderThanHours=1", nil},
		{"due=overdue", nil},
	} {
		got := addressIDs(f.queue(t, tc.query).Items)
		if !sameSet(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.query, got, tc.want)
		}
	}

	// 25 hours on, Ada's first two are overdue; Bola's is not due today.
	f.clock.Advance(25 * time.Hour)
	over := f.queue(t, "due=overdue")
	if !sameSet(addressIDs(over.Items), []string{ikeja, kano}) || !over.Items[0].Overdue || over.Summary.Overdue != 2 ||
		over.Summary.Total != 4 {
		t.Fatalf("overdue: %+v", over)
	}
	if got := addressIDs(f.queue(t, "olderThanHours=24").Items); !sameSet(got, []string{ikeja, kano, surulere, later}) {
		t.Fatalf("older than 24 h: %v", got)
	}

	// Pages follow the promise order to the end.
	var walked []string
	for q := "limit=1"; ; {
		p := f.queue(t, q)
		walked = append(walked, addressIDs(p.Items)...)
		if p.NextCursor == nil {
			break
		}
		q = "limit=1&cursor=" + url.QueryEscape(*p.NextCursor)
	}
	f.clock.Advance(-25 * time.Hour)
	if want := addressIDs(f.queue(t, "").Items); !equal(walked, want) {
		t.Fatalf("paged %v, want %v", walked, want)
	}
}

func TestOpsQueueRefusesBadFiltersAndOthers(t *testing.T) {
	t.Parallel()
	f := setup(t)
	for _, tc := range []struct{ query, field string }{
		{"state=Atlantis", "state"},
		{"lga=Ikeja", "lga"},
		{"state=Lagos&lga=Albasu", "lga"},
		{"status=VERIFIED", "status"},
		{"orgId=acme", "orgId"},
		{"agentId=bob", "agentId"},
		{"olderThanHours=-1", "olderThanHours"},
		{"olderThanHours=soon", "olderThanHours"},
		{"olderThanHours=9000", "olderThanHours"},
		{"due=tomorrow", "due"},
		{"limit=0", "limit"},
		{"limit=201", "limit"},
		{"cursor=not-a-cursor", "cursor"},
		{"cursor=" + url.QueryEscape("eA"), "cursor"},
	} {
		r := f.staff(t, principal.RoleDispatcher, "GET", "/ops/v1/queue?"+tc.query, nil)
		expect(t, tc.query, r, http.StatusBadRequest, "VALIDATION_ERROR")
		if r.field() != tc.field {
			t.Errorf("%s: field %q, want %q", tc.query, r.field(), tc.field)
		}
	}
	for _, kind := range []principal.Kind{"", principal.KindAPIKey, principal.KindGateway, principal.KindEdge} {
		for _, path := range []string{"/ops/v1/queue", "/ops/v1/coverage", "/ops/v1/agents", "/ops/v1/areas"} {
			expect(t, string(kind)+" "+path, f.do(t, request{method: "GET", path: path, kind: kind}), http.StatusUnauthorized, "UNAUTHORIZED")
		}
	}
	expect(t, "the admin token on /ops/v1", f.admin(t, "GET", "/ops/v1/queue", nil), http.StatusUnauthorized, "UNAUTHORIZED")
}

func TestOpsReassignMany(t *testing.T) {
	t.Parallel()
	f := setup(t)
	org := ids.New("org")
	ade := f.newAgent(t, "Lagos")
	a1, a2, a3 := f.openIn(t, org, verification.EnvLive, "Lagos", "Ikeja"), f.openIn(t, org, verification.EnvLive, "Lagos", "Epe"),
		f.openIn(t, org, verification.EnvLive, "Lagos", "Ojo")
	sandbox := f.openIn(t, org, verification.EnvTest, "Lagos", "Ikeja")
	expect(t, "check-in", f.do(t, ade.call("POST", "/agent/v1/tasks/"+a3+"/check-in", "c1",
		map[string]any{"latitude": 6.4281, "longitude": 3.4219, "accuracy": 12})), http.StatusOK, "")
	bisi := f.newAgent(t, "Lagos")

	body := map[string]any{"addressIds": []string{a1, a2, a3, sandbox, ids.New("adr"), "nonsense"}, "agentId": bisi.id}
	expect(t, "a reviewer", f.staff(t, principal.RoleReviewer, "POST", "/ops/v1/queue/reassign", body), http.StatusForbidden, "ROLE_REQUIRED")
	r := f.staff(t, principal.RoleDispatcher, "POST", "/ops/v1/queue/reassign", body)
	expect(t, "reassign", r, http.StatusOK, "")
	var out struct {
		Results []struct {
			AddressID string
			OK        bool
			Status    *string
			Error     *struct{ Code string }
		}
		Reassigned, Refused int
	}
	r.data(t, &out)
	want := map[string]string{a1: "", a2: "", a3: "INVALID_TRANSITION", sandbox: "INVALID_TRANSITION"}
	if out.Reassigned != 2 || out.Refused != 4 || len(out.Results) != 6 {
		t.Fatalf("reassign: %s", r.body)
	}
	for _, res := range out.Results[:4] {
		code := ""
		if res.Error != nil {
			code = res.Error.Code
		}
		if code != want[res.AddressID] || res.OK != (code == "") {
			t.Fatalf("%s: %s", res.AddressID, r.body)
		}
	}
	for _, res := range out.Results[4:] {
		if res.OK || res.Error == nil || res.Error.Code != "NOT_FOUND" {
			t.Fatalf("an unknown address: %s", r.body)
		}
	}
	for _, it := range f.queue(t, "agentId="+bisi.id).Items {
		if it.Agent == nil || it.Agent.Name == "" || it.Status != "ASSIGNED" {
			t.Fatalf("reassigned item: %+v", it)
		}
	}
	if got := addressIDs(f.queue(t, "agentId="+bisi.id).Items); !sameSet(got, []string{a1, a2}) {
		t.Fatalf("Bisi's queue: %v", got)
	}
	if n := f.audited(t, "task.reassign"); n != 2 {
		t.Fatalf("%d reassignments audited, want 2", n)
	}

	for _, tc := range []struct {
		name  string
		body  any
		field string
	}{
		{"no addresses", map[string]any{"addressIds": []string{}, "agentId": bisi.id}, "addressIds"},
		{"101 addresses", map[string]any{"addressIds": make([]string, 101), "agentId": bisi.id}, "addressIds"},
		{"twice", map[string]any{"addressIds": []string{a1, a1}, "agentId": bisi.id}, "addressIds[1]"},
		{"no agent", map[string]any{"addressIds": []string{a1}}, "agentId"},
		{"a bad agent id", map[string]any{"addressIds": []string{a1}, "agentId": "bisi"}, "agentId"},
	} {
		r := f.staff(t, principal.RoleDispatcher, "POST", "/ops/v1/queue/reassign", tc.body)
		expect(t, tc.name, r, http.StatusBadRequest, "VALIDATION_ERROR")
		if r.field() != tc.field {
			t.Errorf("%s: field %q, want %q", tc.name, r.field(), tc.field)
		}
	}
	expect(t, "an unknown agent", f.staff(t, principal.RoleAdmin, "POST", "/ops/v1/queue/reassign",
		map[string]any{"addressIds": []string{a1}, "agentId": ids.New("agt")}), http.StatusNotFound, "NOT_FOUND")
}

// audited counts the staff actions recorded in the outbox.
func (f fixture) audited(t *testing.T, action string) int {
	t.Helper()
	var n int
	err := f.store.Pool().QueryRow(t.Context(), `SELECT count(*) FROM outbox WHERE topic = 'staff-audit'
		AND payload -> 'data' ->> 'action' = $1`, action).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	seen := map[string]int{}
	for _, s := range a {
		seen[s]++
	}
	for _, s := range b {
		seen[s]--
	}
	for _, n := range seen {
		if n != 0 {
			return false
		}
	}
	return true
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
