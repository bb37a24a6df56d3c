package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/kycfield/kyc/services/verification/internal/httpapi"
)

func TestAdminNeedsTheOperatorsToken(t *testing.T) {
	t.Parallel()
	f := setup(t)
	for _, route := range []struct{ method, path string }{
		{"POST", "/admin/v1/agents"}, {"GET", "/admin/v1/agents"}, {"POST", "/admin/v1/agents/agt_x/disable"},
		{"POST", "/admin/v1/agents/agt_x/enable"}, {"POST", "/admin/v1/agents/agt_x/code"}, {"POST", "/admin/v1/tasks/adr_x/reassign"},
	} {
		for _, token := range []string{"", "wrong-token"} {
			r := f.do(t, request{method: route.method, path: route.path, admin: token, body: map[string]any{}})
			expect(t, route.method+" "+route.path+" with token "+token, r, http.StatusUnauthorized, "UNAUTHORIZED")
		}
	}
}

func TestAdminAgents(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ph := phone()
	expect(t, "not JSON", f.do(t, request{method: "POST", path: "/admin/v1/agents", admin: adminToken, ctype: "text/plain", body: "name=Ade"}),
		http.StatusUnsupportedMediaType, "UNSUPPORTED_MEDIA_TYPE")
	for what, body := range map[string]map[string]any{
		"no states":         {"name": "Adé Bello", "phone": ph},
		"a bad phone":       {"name": "Adé Bello", "phone": "0803123456", "states": []string{"Lagos"}},
		"an unknown state":  {"name": "Adé Bello", "phone": ph, "states": []string{"Atlantis"}},
		"states as text":    {"name": "Adé Bello", "phone": ph, "states": "Lagos"},
		"an unknown member": {"name": "Adé Bello", "phone": ph, "states": []string{"Lagos"}, "email": "a@example.com"},
	} {
		expect(t, what, f.admin(t, "POST", "/admin/v1/agents", body), http.StatusBadRequest, "VALIDATION_ERROR")
	}
	r := f.admin(t, "POST", "/admin/v1/agents", map[string]any{"name": "Adé  Bello", "phone": ph, "states": []string{"Lagos"}, "lgas": []string{"Eti-Osa"}})
	expect(t, "create", r, http.StatusCreated, "")
	var a httpapi.Agent
	r.data(t, &a)
	if a.ID == "" || a.Name != "Adé Bello" || a.Phone != ph || !a.Active || len(a.LGAs) != 1 || a.CreatedAt == nil {
		t.Fatalf("create: %s", r.body)
	}
	r = f.admin(t, "POST", "/admin/v1/agents", map[string]any{"name": "Another", "phone": ph, "states": []string{"Oyo"}})
	expect(t, "the same phone", r, http.StatusBadRequest, "VALIDATION_ERROR")
	if r.field() != "phone" {
		t.Fatalf("the same phone: %s", r.body)
	}

	r = f.admin(t, "GET", "/admin/v1/agents", nil)
	expect(t, "list", r, http.StatusOK, "")
	var list struct{ Agents []httpapi.Agent }
	r.data(t, &list)
	if len(list.Agents) != 1 || list.Agents[0].ID != a.ID {
		t.Fatalf("list: %s", r.body)
	}

	expect(t, "disable an unknown agent", f.admin(t, "POST", "/admin/v1/agents/agt_unknown/disable", nil), http.StatusNotFound, "NOT_FOUND")
	expect(t, "code for an unknown agent", f.admin(t, "POST", "/admin/v1/agents/agt_unknown/code", nil), http.StatusNotFound, "NOT_FOUND")
	r = f.admin(t, "POST", "/admin/v1/agents/"+a.ID+"/disable", nil)
	expect(t, "disable", r, http.StatusOK, "")
	r.data(t, &a)
	if a.Active {
		t.Fatalf("disable: %s", r.body)
	}
	expect(t, "code for a disabled agent", f.admin(t, "POST", "/admin/v1/agents/"+a.ID+"/code", nil), http.StatusConflict, "AGENT_DISABLED")
	r = f.admin(t, "POST", "/admin/v1/agents/"+a.ID+"/enable", nil)
	expect(t, "enable", r, http.StatusOK, "")
	r.data(t, &a)
	if !a.Active {
		t.Fatalf("enable: %s", r.body)
	}
	r = f.admin(t, "POST", "/admin/v1/agents/"+a.ID+"/code", nil)
	expect(t, "code", r, http.StatusCreated, "")
	var c struct {
		Code      string
		ExpiresAt *string
	}
	r.data(t, &c)
	if len(c.Code) != 6 || c.ExpiresAt == nil {
		t.Fatalf("code: %s", r.body)
	}
}

func TestAdminReassign(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ade := f.newAgent(t, "Lagos")
	adr := f.openLive(t, "Lagos")
	bisi := f.newAgent(t, "Oyo")
	path := "/admin/v1/tasks/" + adr + "/reassign"

	r := f.admin(t, "POST", path, map[string]any{})
	expect(t, "no agentId", r, http.StatusBadRequest, "VALIDATION_ERROR")
	if r.field() != "agentId" {
		t.Fatalf("no agentId: %s", r.body)
	}
	expect(t, "an unknown agent", f.admin(t, "POST", path, map[string]any{"agentId": "agt_unknown"}), http.StatusNotFound, "NOT_FOUND")
	expect(t, "an unknown task", f.admin(t, "POST", "/admin/v1/tasks/adr_unknown/reassign", map[string]any{"agentId": bisi.id}),
		http.StatusNotFound, "NOT_FOUND")

	r = f.admin(t, "POST", path, map[string]any{"agentId": bisi.id})
	expect(t, "reassign", r, http.StatusOK, "")
	var task httpapi.Task
	r.data(t, &task)
	if task.ID != adr || task.Status != "ASSIGNED" {
		t.Fatalf("reassign: %s", r.body)
	}
	at := map[string]any{"latitude": 6.4281, "longitude": 3.4219, "accuracy": 12}
	expect(t, "the old agent's check-in", f.do(t, ade.call("POST", "/agent/v1/tasks/"+adr+"/check-in", "c1", at)), http.StatusNotFound, "NOT_FOUND")
	expect(t, "the new agent's check-in", f.do(t, bisi.call("POST", "/agent/v1/tasks/"+adr+"/check-in", "c1", at)), http.StatusOK, "")
	expect(t, "reassigning a visit under way", f.admin(t, "POST", path, map[string]any{"agentId": ade.id}), http.StatusConflict, "INVALID_TRANSITION")

	expect(t, "disable", f.admin(t, "POST", "/admin/v1/agents/"+ade.id+"/disable", nil), http.StatusOK, "")
	adr2 := f.openLive(t, "Lagos")
	expect(t, "reassign to a disabled agent", f.admin(t, "POST", "/admin/v1/tasks/"+adr2+"/reassign", map[string]any{"agentId": ade.id}),
		http.StatusConflict, "AGENT_DISABLED")
}
