package httpapi_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/kycfield/kyc/pkg/orgaudit"
	"github.com/kycfield/kyc/pkg/orgaudit/orgaudittest"
	"github.com/kycfield/kyc/services/webhook/internal/httpapi"
	"github.com/kycfield/kyc/services/webhook/internal/webhook"
)

// actor is who calls in the audit tests: a member (user and role) or,
// without a user, the organization's key ("key_test" in the fixture).
type actor struct{ user, role, ip string }

var (
	admin   = actor{"usr_ada", "admin", "203.0.113.7"}
	backend = actor{"", "", "198.51.100.4"}
)

func (f *fixture) callAs(who tenant, a actor, method, path string, body any) response {
	f.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req := httptest.NewRequest(method, path, rd)
	req.Header.Set("X-Org", who.org)
	req.Header.Set("X-Env", who.env)
	req.Header.Set("X-IP", a.ip)
	if a.user != "" {
		req.Header.Set("X-User", a.user)
		req.Header.Set("X-Role", a.role)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	w := httptest.NewRecorder()
	f.mux.ServeHTTP(w, req)
	out := response{status: w.Code, body: w.Body.Bytes()}
	_ = json.Unmarshal(out.body, &out.env)
	return out
}

// Every change to a webhook endpoint, every secret read, test, retry and
// recovery is one org.action naming the actor, the endpoint (or the
// delivery) and the IP, in the transaction of the change; reads and
// refused requests record nothing, and no action carries a secret or
// the endpoint's URL.
func TestWebhookActionsAreAudited(t *testing.T) {
	f := setup(t, options{})
	who := newTenant()
	rc := newReceiver(t, nil)
	url := rc.URL + "/hooks?token=receiver-own-token"
	n := 0
	secrets := map[string]bool{}
	step := func(a actor, action, target string, status, got int) orgaudittest.Recorded {
		t.Helper()
		if got != status {
			t.Fatalf("%s: status %d, want %d", action, got, status)
		}
		recs := orgaudittest.Since(t, f.pool, n)
		n += len(recs)
		w := orgaudittest.Want{Topic: orgaudit.Topic, OrgID: who.org, Env: who.env, Action: action, Target: target, IP: a.ip}
		if a.user != "" {
			w.ActorType, w.ActorID, w.MemberRole = orgaudit.ActorUser, a.user, a.role
		} else {
			w.ActorType, w.ActorID = orgaudit.ActorKey, "key_test"
		}
		r := orgaudittest.One(t, recs, w)
		data := string(r.Event.Data)
		for s := range secrets {
			if strings.Contains(data, s) {
				t.Errorf("%s carries a secret: %s", action, data)
			}
		}
		if strings.Contains(data, "receiver-own-token") || strings.Contains(data, rc.URL) {
			t.Errorf("%s carries the endpoint's URL: %s", action, data)
		}
		return r
	}
	none := func(what string, status, want int) {
		t.Helper()
		if status != want {
			t.Fatalf("%s: status %d, want %d", what, status, want)
		}
		if recs := orgaudittest.Since(t, f.pool, n); len(recs) != 0 {
			t.Errorf("%s recorded %+v", what, recs)
			n += len(recs)
		}
	}
	base := "/api/v1/webhooks"

	r := f.callAs(who, admin, "POST", base, map[string]any{"url": url, "events": []string{webhook.TypeCompleted}})
	e := decode[httpapi.Endpoint](t, r)
	secrets[e.Secret] = true
	rec := step(admin, webhook.ActionCreate, e.ID, http.StatusCreated, r.status)
	if ev, _ := rec.Details["events"].([]any); len(ev) != 1 || ev[0] != webhook.TypeCompleted {
		t.Errorf("create details: %v", rec.Details)
	}
	none("an invalid create", f.callAs(who, admin, "POST", base, map[string]any{"url": "ftp://hooks.example.com"}).status, http.StatusBadRequest)
	none("a list", f.callAs(who, admin, "GET", base, nil).status, http.StatusOK)
	none("a read", f.callAs(who, admin, "GET", base+"/"+e.ID, nil).status, http.StatusOK)

	r = f.callAs(who, backend, "PATCH", base+"/"+e.ID, map[string]any{"description": "Loans team"})
	rec = step(backend, webhook.ActionUpdate, e.ID, http.StatusOK, r.status)
	if fs, _ := rec.Details["fields"].([]any); len(fs) != 1 || fs[0] != "description" {
		t.Errorf("update details: %v", rec.Details)
	}
	none("an invalid update", f.callAs(who, backend, "PATCH", base+"/"+e.ID, map[string]any{"events": []string{"nope"}}).status, http.StatusBadRequest)

	r = f.callAs(who, admin, "GET", base+"/"+e.ID+"/secret", nil)
	step(admin, webhook.ActionSecretRead, e.ID, http.StatusOK, r.status)
	none("reading an unknown endpoint's secret", f.callAs(who, admin, "GET", base+"/whe_019a2b3c4d5e6f708192a3b4c5d6e7f8/secret", nil).status, http.StatusNotFound)
	none("reading another tenant's secret", f.callAs(newTenant(), admin, "GET", base+"/"+e.ID+"/secret", nil).status, http.StatusNotFound)

	r = f.callAs(who, backend, "POST", base+"/"+e.ID+"/rotate-secret", nil)
	secrets[decode[httpapi.Endpoint](t, r).Secret] = true
	step(backend, webhook.ActionRotateSecret, e.ID, http.StatusOK, r.status)

	r = f.callAs(who, admin, "POST", base+"/"+e.ID+"/test", nil)
	d := decode[httpapi.Delivery](t, r)
	rec = step(admin, webhook.ActionTest, e.ID, http.StatusAccepted, r.status)
	if rec.Details["eventId"] == "" || rec.Details["eventId"] == nil {
		t.Errorf("test details: %v", rec.Details)
	}

	r = f.callAs(who, backend, "POST", base+"/"+e.ID+"/deliveries/"+d.ID+"/retry", nil)
	rec = step(backend, webhook.ActionRetry, d.ID, http.StatusAccepted, r.status)
	if rec.Details["endpointId"] != e.ID {
		t.Errorf("retry details: %v", rec.Details)
	}
	none("retrying an unknown delivery", f.callAs(who, backend, "POST", base+"/"+e.ID+"/deliveries/dlv_019a2b3c4d5e6f708192a3b4c5d6e7f8/retry", nil).status,
		http.StatusNotFound)

	since := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
	r = f.callAs(who, backend, "POST", base+"/"+e.ID+"/recover", map[string]any{"since": since})
	rec = step(backend, webhook.ActionRecover, e.ID, http.StatusAccepted, r.status)
	if rec.Details["since"] != since || rec.Details["recovered"] == nil {
		t.Errorf("recover details: %v", rec.Details)
	}
	none("a recovery without since", f.callAs(who, backend, "POST", base+"/"+e.ID+"/recover", map[string]any{}).status, http.StatusBadRequest)

	r = f.callAs(who, admin, "DELETE", base+"/"+e.ID, nil)
	step(admin, webhook.ActionDelete, e.ID, http.StatusOK, r.status)
	none("deleting it again", f.callAs(who, admin, "DELETE", base+"/"+e.ID, nil).status, http.StatusNotFound)
}
