package httpapi_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kycfield/kyc/pkg/ids"
	"github.com/kycfield/kyc/pkg/orgaudit"
	"github.com/kycfield/kyc/pkg/orgaudit/orgaudittest"
	"github.com/kycfield/kyc/services/document/internal/document"
)

// as sends a request as a member (user and role) or, with no user, as the
// organization's key, from ip.
func (f fixture) as(t *testing.T, who tenant, user, role, ip, method, path, ctype string, body io.Reader) response {
	t.Helper()
	r := httptest.NewRequest(method, path, body)
	r.Header.Set("X-Org", who.org)
	r.Header.Set("X-Env", who.env)
	r.Header.Set("X-IP", ip)
	if user != "" {
		r.Header.Set("X-User", user)
		r.Header.Set("X-Role", role)
	}
	if ctype != "" {
		r.Header.Set("Content-Type", ctype)
	}
	w := httptest.NewRecorder()
	f.mux.ServeHTTP(w, r)
	res := response{status: w.Code, header: w.Header(), body: w.Body.Bytes()}
	_ = json.Unmarshal(res.body, &res.env)
	return res
}

// Adding a document, a file from the dashboard or a link with a key, is
// one document.upload naming the actor, the document, its customer and
// type, and never the file, its URL or its name; a refused add records
// nothing.
func TestDocumentUploadsAreAudited(t *testing.T) {
	f := setup(t, nil)
	who := newTenant("test")
	cus := f.customer(t, who)

	ct, b := form(part{name: "file", file: "bvn-22212345678.png", value: string(pngBytes(t, 32, 24))}, part{name: "documentType", value: "ID_CARD"})
	r := f.as(t, who, "usr_ada", "developer", "203.0.113.7", "POST", "/api/v1/customers/"+cus+"/documents", ct, b)
	if r.status != http.StatusCreated {
		t.Fatalf("upload: %d %s", r.status, r.body)
	}
	file := r.doc(t)
	got := orgaudittest.One(t, orgaudittest.Actions(t, f.pool), orgaudittest.Want{Topic: orgaudit.Topic, OrgID: who.org, Env: who.env,
		ActorType: orgaudit.ActorUser, ActorID: "usr_ada", MemberRole: "developer", Action: document.ActionUpload, Target: file.ID, IP: "203.0.113.7"})
	if got.Details["customerId"] != cus || got.Details["type"] != "ID_CARD" || got.Details["hosted"] != true {
		t.Errorf("upload details: %v", got.Details)
	}
	if s := string(got.Event.Data); strings.Contains(s, "22212345678") || strings.Contains(s, "png") {
		t.Errorf("the action carries the file's name: %s", s)
	}

	r = f.as(t, who, "", "", "198.51.100.4", "POST", "/api/v1/customers/"+cus+"/documents", "application/json", strings.NewReader(linkBody))
	if r.status != http.StatusCreated {
		t.Fatalf("link: %d %s", r.status, r.body)
	}
	link := r.doc(t)
	got = orgaudittest.One(t, orgaudittest.Since(t, f.pool, 1), orgaudittest.Want{OrgID: who.org, Env: who.env,
		ActorType: orgaudit.ActorKey, ActorID: "key_test", Action: document.ActionUpload, Target: link.ID, IP: "198.51.100.4"})
	if got.Details["hosted"] != false || strings.Contains(string(got.Event.Data), "files.example.com") {
		t.Errorf("link action: %s", got.Event.Data)
	}

	for _, c := range []struct{ name, cus, body string }{
		{"invalid link", cus, strings.Replace(linkBody, `,"documentType":"ID_CARD"`, "", 1)},
		{"unknown customer", ids.New("cus"), linkBody},
	} {
		if r := f.as(t, who, "usr_ada", "developer", "203.0.113.7", "POST", "/api/v1/customers/"+c.cus+"/documents", "application/json",
			strings.NewReader(c.body)); r.status < 400 {
			t.Fatalf("%s accepted: %d", c.name, r.status)
		}
	}
	ct, b = form(part{name: "file", file: "notes.txt", value: "plain text"}, part{name: "documentType", value: "ID_CARD"})
	if r := f.as(t, who, "usr_ada", "developer", "203.0.113.7", "POST", "/api/v1/customers/"+cus+"/documents", ct, b); r.status < 400 {
		t.Fatalf("a text file accepted: %d", r.status)
	}
	if extra := orgaudittest.Since(t, f.pool, 2); len(extra) != 0 {
		t.Errorf("refused adds were recorded: %+v", extra)
	}
}
