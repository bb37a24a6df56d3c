package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/services/verification/internal/httpapi"
)

func TestAgentSession(t *testing.T) {
	t.Parallel()
	f := setup(t)
	_, ph, code := f.agentWithCode(t, "Lagos")
	signIn := func(kind principal.Kind, ctype string, body any) response {
		return f.do(t, request{method: "POST", path: "/agent/v1/session", kind: kind, ctype: ctype, body: body})
	}
	good := map[string]string{"phone": ph, "code": code}

	expect(t, "no principal", signIn("", "", good), http.StatusUnauthorized, "UNAUTHORIZED")
	expect(t, "an API key's principal", signIn(principal.KindAPIKey, "", good), http.StatusUnauthorized, "UNAUTHORIZED")
	expect(t, "not JSON", signIn(principal.KindEdge, "text/plain", "phone="+ph), http.StatusUnsupportedMediaType, "UNSUPPORTED_MEDIA_TYPE")
	expect(t, "malformed JSON", signIn(principal.KindEdge, "", `{"phone":`), http.StatusBadRequest, "INVALID_JSON")
	r := signIn(principal.KindEdge, "", map[string]any{"phone": 8031234567})
	expect(t, "a number for the phone", r, http.StatusBadRequest, "VALIDATION_ERROR")
	if r.field() != "phone" {
		t.Fatalf("a number for the phone: %s", r.body)
	}
	r = signIn(principal.KindEdge, "", map[string]any{"phone": ph})
	expect(t, "no code", r, http.StatusBadRequest, "VALIDATION_ERROR")
	if r.field() != "code" {
		t.Fatalf("no code: %s", r.body)
	}
	expect(t, "unknown member", signIn(principal.KindEdge, "", map[string]any{"phone": ph, "code": code, "pin": 1}),
		http.StatusBadRequest, "VALIDATION_ERROR")
	expect(t, "a wrong code", signIn(principal.KindEdge, "", map[string]string{"phone": ph, "code": "000000"}),
		http.StatusUnauthorized, "INVALID_CODE")

	r = signIn(principal.KindEdge, "", good)
	expect(t, "sign in", r, http.StatusCreated, "")
	var s struct {
		Token     string
		ExpiresAt *string
		Agent     struct{ ID, Name string }
	}
	r.data(t, &s)
	if s.Token == "" || s.ExpiresAt == nil || s.Agent.Name != "Adé Bello" {
		t.Fatalf("sign in: %s", r.body)
	}
	expect(t, "the code again", signIn(principal.KindEdge, "", good), http.StatusUnauthorized, "INVALID_CODE")

	a := agent{id: s.Agent.ID, token: s.Token}
	expect(t, "tasks", f.do(t, a.call("GET", "/agent/v1/tasks", "", nil)), http.StatusOK, "")
	noSession := a.call("GET", "/agent/v1/tasks", "", nil)
	noSession.agent = ""
	r = f.do(t, noSession)
	expect(t, "tasks without a session", r, http.StatusUnauthorized, "UNAUTHORIZED")
	if r.header.Get("WWW-Authenticate") != `Bearer realm="agent"` {
		t.Fatalf("no WWW-Authenticate: %v", r.header)
	}
	wrongKind := a.call("GET", "/agent/v1/tasks", "", nil)
	wrongKind.kind = principal.KindService
	expect(t, "tasks with a service principal", f.do(t, wrongKind), http.StatusUnauthorized, "UNAUTHORIZED")

	expect(t, "sign out", f.do(t, a.call("DELETE", "/agent/v1/session", "", nil)), http.StatusOK, "")
	expect(t, "tasks after signing out", f.do(t, a.call("GET", "/agent/v1/tasks", "", nil)), http.StatusUnauthorized, "UNAUTHORIZED")
	expect(t, "sign out again", f.do(t, a.call("DELETE", "/agent/v1/session", "", nil)), http.StatusUnauthorized, "UNAUTHORIZED")
}

// TestAgentTasksAreTheAgentsOwn: each agent lists only its tasks, and
// another agent's task is not found whatever the change.
func TestAgentTasksAreTheAgentsOwn(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ade, bisi := f.newAgent(t, "Lagos"), f.newAgent(t, "Oyo")
	adr := f.openLive(t, "Lagos")
	tasks := func(a agent) []httpapi.Task {
		r := f.do(t, a.call("GET", "/agent/v1/tasks", "", nil))
		expect(t, "tasks", r, http.StatusOK, "")
		var d struct{ Tasks []httpapi.Task }
		r.data(t, &d)
		return d.Tasks
	}
	if ts := tasks(ade); len(ts) != 1 || ts[0].ID != adr || ts[0].Status != "ASSIGNED" || ts[0].CustomerName != "Ngozi Okafor" {
		t.Fatalf("Adé's tasks: %+v", ts)
	}
	if ts := tasks(bisi); len(ts) != 0 {
		t.Fatalf("Bisi sees another agent's task: %+v", ts)
	}
	at := map[string]any{"latitude": 6.4281, "longitude": 3.4219, "accuracy": 12}
	expect(t, "check-in on another agent's task", f.do(t, bisi.call("POST", "/agent/v1/tasks/"+adr+"/check-in", "k1", at)),
		http.StatusNotFound, "NOT_FOUND")
	expect(t, "check-in on an unknown task", f.do(t, ade.call("POST", "/agent/v1/tasks/adr_unknown/check-in", "k2", at)),
		http.StatusNotFound, "NOT_FOUND")
	body, ctype := photoForm(t, jpegBytes(t), "tag", "building_front")
	q := bisi.call("POST", "/agent/v1/tasks/"+adr+"/photos", "k3", body)
	q.ctype = ctype
	expect(t, "photo of another agent's task", f.do(t, q), http.StatusNotFound, "NOT_FOUND")
	done := map[string]any{"outcome": "NO_ACCESS", "latitude": 6.4281, "longitude": 3.4219, "accuracy": 12}
	expect(t, "completing another agent's task", f.do(t, bisi.call("POST", "/agent/v1/tasks/"+adr+"/complete", "k4", done)),
		http.StatusNotFound, "NOT_FOUND")
	if ts := tasks(ade); len(ts) != 1 || ts[0].Status != "ASSIGNED" {
		t.Fatalf("another agent changed Adé's task: %+v", ts)
	}
}

func TestAgentCheckIn(t *testing.T) {
	t.Parallel()
	f := setup(t)
	a := f.newAgent(t, "Lagos")
	adr := f.openLive(t, "Lagos")
	path := "/agent/v1/tasks/" + adr + "/check-in"
	at := map[string]any{"latitude": 6.4281, "longitude": 3.4219, "accuracy": 12}

	r := f.do(t, a.call("POST", path, "", at))
	expect(t, "no Idempotency-Key", r, http.StatusBadRequest, "VALIDATION_ERROR")
	if r.field() != "Idempotency-Key" {
		t.Fatalf("no Idempotency-Key: %s", r.body)
	}
	r = f.do(t, a.call("POST", path, "", map[string]any{"latitude": "north"}))
	expect(t, "a bad body without a key", r, http.StatusBadRequest, "VALIDATION_ERROR")
	if r.field() != "latitude" {
		t.Fatalf("the body's problem is reported first: %s", r.body)
	}
	r = f.do(t, a.call("POST", path, "c1", map[string]any{"latitude": 6.4281, "longitude": 3.4219}))
	expect(t, "no accuracy", r, http.StatusBadRequest, "VALIDATION_ERROR")
	if r.field() != "accuracy" {
		t.Fatalf("no accuracy: %s", r.body)
	}
	expect(t, "out of range", f.do(t, a.call("POST", path, "c1", map[string]any{"latitude": 91, "longitude": 3.4, "accuracy": 5})),
		http.StatusBadRequest, "VALIDATION_ERROR")
	wrongKind := a.call("POST", path, "c1", at)
	wrongKind.kind = principal.KindAPIKey
	expect(t, "an API key's principal", f.do(t, wrongKind), http.StatusUnauthorized, "UNAUTHORIZED")
	expect(t, "a photo before check-in", f.upload(t, a, adr, "p0", jpegBytes(t), "tag", "building_front"),
		http.StatusConflict, "INVALID_TRANSITION")
	expect(t, "completing before check-in", f.do(t, a.call("POST", "/agent/v1/tasks/"+adr+"/complete", "d0",
		map[string]any{"outcome": "NO_ACCESS", "latitude": 6.4281, "longitude": 3.4219, "accuracy": 12})),
		http.StatusConflict, "INVALID_TRANSITION")

	r = f.do(t, a.call("POST", path, "c1", at))
	expect(t, "check-in", r, http.StatusOK, "")
	var task httpapi.Task
	r.data(t, &task)
	if task.Status != "IN_PROGRESS" || task.Visit == nil || task.Visit.Latitude != 6.4281 || task.Visit.At == nil {
		t.Fatalf("check-in: %s", r.body)
	}
	expect(t, "the same check-in again", f.do(t, a.call("POST", path, "c1", at)), http.StatusOK, "")
	expect(t, "the key with another body", f.do(t, a.call("POST", path, "c1", map[string]any{"latitude": 6.5, "longitude": 3.4, "accuracy": 9})),
		http.StatusUnprocessableEntity, "IDEMPOTENCY_KEY_REUSED")
	expect(t, "checking in twice", f.do(t, a.call("POST", path, "c2", at)), http.StatusConflict, "INVALID_TRANSITION")
}
