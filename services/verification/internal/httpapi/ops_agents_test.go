package httpapi_test

import (
	"math"
	"net/http"
	"testing"
	"time"

	"github.com/kycfield/kyc/pkg/ids"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/services/verification/internal/verification"
)

type area struct {
	Name                  string
	Open, Waiting, Agents int
	LGAAgents             *int
	Uncovered             bool
	LGAs                  []area
}

func (f fixture) coverage(t *testing.T) []area {
	t.Helper()
	r := f.staff(t, principal.RoleReviewer, "GET", "/ops/v1/coverage", nil)
	expect(t, "coverage", r, http.StatusOK, "")
	var out struct{ States []area }
	r.data(t, &out)
	return out.States
}

type opsAgent struct {
	ID, Name, Phone string
	States, LGAs    []string
	Active          bool
	OpenTasks       int
	LastSeenAt      *time.Time
	Week            *struct {
		Visits, Flagged, Rejected, NoAccess       int
		MedianSecondsOnSite                       *float64
		FlaggedShare, RejectedShare, NoAccessRate *float64
	}
}

func TestOpsCoverageFirstUncoveredThenAgentCreatedTakesTheWork(t *testing.T) {
	t.Parallel()
	f := setup(t)
	org := ids.New("org")
	f.newAgent(t, "Lagos")
	for range 3 {
		f.openIn(t, org, verification.EnvLive, "Lagos", "Ikeja")
	}
	albasu := f.openIn(t, org, verification.EnvLive, "Kano", "Albasu")
	f.openIn(t, org, verification.EnvTest, "Kano", "Ajingi") // the sandbox is no one's work

	states := f.coverage(t)
	if len(states) != 37 {
		t.Fatalf("%d states, want the 37 of the gazetteer", len(states))
	}
	kano, lagos := states[0], states[1]
	if kano.Name != "Kano" || !kano.Uncovered || kano.Open != 1 || kano.Waiting != 1 || kano.Agents != 0 ||
		len(kano.LGAs) != 1 || kano.LGAs[0].Name != "Albasu" || !kano.LGAs[0].Uncovered {
		t.Fatalf("first: want Kano, open work and no agent: %+v", kano)
	}
	if lagos.Name != "Lagos" || lagos.Uncovered || lagos.Open != 3 || lagos.Waiting != 0 || lagos.Agents != 1 ||
		len(lagos.LGAs) != 1 || *lagos.LGAs[0].LGAAgents != 0 {
		t.Fatalf("second: want Lagos, covered: %+v", lagos)
	}
	if states[2].Open != 0 || states[2].Uncovered {
		t.Fatalf("third: want a state without work: %+v", states[2])
	}

	// A dispatcher creates an agent for Albasu: the waiting address is
	// assigned at once.
	in := map[string]any{"name": "Musa Sani", "phone": "0803 123 4567", "states": []string{"kano"}, "lgas": []string{"ALBASU"}}
	expect(t, "a reviewer", f.staff(t, principal.RoleReviewer, "POST", "/ops/v1/agents", in), http.StatusForbidden, "ROLE_REQUIRED")
	r := f.staff(t, principal.RoleDispatcher, "POST", "/ops/v1/agents", in)
	expect(t, "create", r, http.StatusCreated, "")
	var musa opsAgent
	r.data(t, &musa)
	if musa.Phone != "+2348031234567" || musa.States[0] != "Kano" || musa.LGAs[0] != "Albasu" || musa.OpenTasks != 1 || !musa.Active {
		t.Fatalf("created: %s", r.body)
	}
	items := f.queue(t, "state=Kano").Items
	if len(items) != 1 || items[0].AddressID != albasu || items[0].Status != "ASSIGNED" || items[0].Agent.ID != musa.ID {
		t.Fatalf("Kano's queue: %+v", items)
	}
	if kano := f.coverage(t)[0]; kano.Name == "Kano" && kano.Uncovered {
		t.Fatalf("Kano still uncovered: %+v", kano)
	}
	if f.audited(t, "agent.create") != 2 { // Adé through /admin/v1 (the admin token), Musa here
		t.Fatalf("agent creations audited: %d", f.audited(t, "agent.create"))
	}
}

func TestOpsAgentsEditWidenAndValidate(t *testing.T) {
	t.Parallel()
	f := setup(t)
	org := ids.New("org")
	oyo := f.openIn(t, org, verification.EnvLive, "Oyo", "Ibadan North")
	r := f.staff(t, principal.RoleAdmin, "POST", "/ops/v1/agents", map[string]any{"name": "Tayo Ade", "phone": "+2348091112222", "states": []string{"Lagos"}})
	expect(t, "create", r, http.StatusCreated, "")
	var tayo opsAgent
	r.data(t, &tayo)
	if tayo.OpenTasks != 0 {
		t.Fatalf("an agent for Lagos took Oyo's work: %s", r.body)
	}

	// Widening to Oyo takes the waiting address at once.
	r = f.staff(t, principal.RoleDispatcher, "PATCH", "/ops/v1/agents/"+tayo.ID, map[string]any{"states": []string{"Lagos", "Oyo"}})
	expect(t, "widen", r, http.StatusOK, "")
	r.data(t, &tayo)
	if tayo.OpenTasks != 1 || tayo.Name != "Tayo Ade" || len(tayo.States) != 2 {
		t.Fatalf("widened: %s", r.body)
	}
	if it := f.queue(t, "state=Oyo").Items; len(it) != 1 || it[0].AddressID != oyo || it[0].Agent == nil || it[0].Agent.ID != tayo.ID {
		t.Fatalf("Oyo's queue: %+v", it)
	}
	r = f.staff(t, principal.RoleDispatcher, "PATCH", "/ops/v1/agents/"+tayo.ID, map[string]any{"name": "Tayo  Adeyemi", "phone": "0809 111 3333"})
	expect(t, "rename", r, http.StatusOK, "")
	r.data(t, &tayo)
	if tayo.Name != "Tayo Adeyemi" || tayo.Phone != "+2348091113333" || len(tayo.States) != 2 {
		t.Fatalf("renamed: %s", r.body)
	}
	if f.audited(t, "agent.update") != 2 {
		t.Fatalf("updates audited: %d", f.audited(t, "agent.update"))
	}

	other := f.staff(t, principal.RoleAdmin, "POST", "/ops/v1/agents", map[string]any{"name": "Uche Obi", "phone": "+2348091114444", "states": []string{"Enugu"}})
	expect(t, "another", other, http.StatusCreated, "")
	for _, tc := range []struct {
		name  string
		body  any
		field string
	}{
		{"a short name", map[string]any{"name": "T"}, "name"},
		{"a landline", map[string]any{"phone": "01 234 5678"}, "phone"},
		{"another agent's phone", map[string]any{"phone": "+2348091114444"}, "phone"},
		{"no state", map[string]any{"states": []string{}}, "states"},
		{"an unknown state", map[string]any{"states": []string{"Atlantis"}}, "states[0]"},
		{"an LGA of another state", map[string]any{"lgas": []string{"Albasu"}}, "lgas[0]"},
		{"an unknown member", map[string]any{"colour": "red"}, "colour"},
		{"a number for a name", map[string]any{"name": 7}, "name"},
	} {
		r := f.staff(t, principal.RoleDispatcher, "PATCH", "/ops/v1/agents/"+tayo.ID, tc.body)
		expect(t, tc.name, r, http.StatusBadRequest, "VALIDATION_ERROR")
		if r.field() != tc.field {
			t.Errorf("%s: field %q, want %q (%s)", tc.name, r.field(), tc.field, r.body)
		}
	}
	expect(t, "an unknown agent", f.staff(t, principal.RoleDispatcher, "PATCH", "/ops/v1/agents/"+ids.New("agt"),
		map[string]any{"name": "Nobody"}), http.StatusNotFound, "NOT_FOUND")
	expect(t, "a reviewer edits", f.staff(t, principal.RoleReviewer, "PATCH", "/ops/v1/agents/"+tayo.ID,
		map[string]any{"name": "Nobody"}), http.StatusForbidden, "ROLE_REQUIRED")

	// Disable sends the not-started task back; enable takes it again.
	r = f.staff(t, principal.RoleDispatcher, "POST", "/ops/v1/agents/"+tayo.ID+"/disable", nil)
	expect(t, "disable", r, http.StatusOK, "")
	if it := f.queue(t, "state=Oyo").Items; it[0].Status != "PENDING" || it[0].Agent != nil {
		t.Fatalf("after disable: %+v", it[0])
	}
	expect(t, "a code for a disabled agent", f.staff(t, principal.RoleDispatcher, "POST", "/ops/v1/agents/"+tayo.ID+"/code", nil),
		http.StatusConflict, "AGENT_DISABLED")
	expect(t, "enable", f.staff(t, principal.RoleDispatcher, "POST", "/ops/v1/agents/"+tayo.ID+"/enable", nil), http.StatusOK, "")
	if it := f.queue(t, "state=Oyo").Items; it[0].Status != "ASSIGNED" {
		t.Fatalf("after enable: %+v", it[0])
	}
	r = f.staff(t, principal.RoleDispatcher, "POST", "/ops/v1/agents/"+tayo.ID+"/code", nil)
	expect(t, "code", r, http.StatusCreated, "")
	var code struct{ Code string }
	r.data(t, &code)
	if len(code.Code) != 6 || f.audited(t, "agent.code") != 1 || f.audited(t, "agent.disable") != 1 || f.audited(t, "agent.enable") != 1 {
		t.Fatalf("code %q, audited code/disable/enable %d/%d/%d", code.Code, f.audited(t, "agent.code"),
			f.audited(t, "agent.disable"), f.audited(t, "agent.enable"))
	}

	r = f.staff(t, principal.RoleReviewer, "GET", "/ops/v1/areas", nil)
	expect(t, "areas", r, http.StatusOK, "")
	var areas struct {
		States []struct {
			Name string
			LGAs []string
		}
	}
	r.data(t, &areas)
	if len(areas.States) != 37 || areas.States[0].Name != "Abia" || len(areas.States[0].LGAs) == 0 {
		t.Fatalf("areas: %d states", len(areas.States))
	}
}

func TestOpsAgentsWeekFiguresAndLastSeen(t *testing.T) {
	t.Parallel()
	f := setup(t)
	org := ids.New("org")
	a := f.newAgent(t, "Lagos")
	var adrs []string
	for range 4 {
		adrs = append(adrs, f.openIn(t, org, verification.EnvLive, "Lagos", "Eti Osa"))
	}
	at := func(lat float64) map[string]any {
		return map[string]any{"latitude": lat, "longitude": 3.4219, "accuracy": 10}
	}
	short := f.visit(t, a, adrs[0], at(6.4281), 90*time.Second, scene(t, 1, 90), scene(t, 2, 90))
	long := f.visit(t, a, adrs[1], at(6.4301), 10*time.Minute, scene(t, 3, 90), scene(t, 4, 90))
	end := func(adr string, lat float64, took time.Duration, outcome map[string]any) {
		expect(t, "check-in", f.do(t, a.call("POST", "/agent/v1/tasks/"+adr+"/check-in", "c-"+adr, at(lat))), http.StatusOK, "")
		f.clock.Advance(took)
		for k, v := range at(lat) {
			outcome[k] = v
		}
		expect(t, "end", f.do(t, a.call("POST", "/agent/v1/tasks/"+adr+"/complete", "d-"+adr, outcome)), http.StatusOK, "")
	}
	end(adrs[2], 6.4321, 5*time.Minute, map[string]any{"outcome": "NO_ACCESS"})
	end(adrs[3], 6.4341, 3*time.Minute, map[string]any{"outcome": "REJECTED", "reason": "WRONG_ADDRESS"})
	rejected := f.result(t, adrs[3])

	flagged := 0
	for _, res := range []verification.Result{short, long, rejected} {
		for _, d := range res.FlagDetails {
			if d.Severity == verification.SeverityWarning || d.Severity == verification.SeverityCritical {
				flagged++
				break
			}
		}
	}
	if flagged == 0 {
		t.Fatal("the 90-second visit raised no warning")
	}

	r := f.staff(t, principal.RoleReviewer, "GET", "/ops/v1/agents", nil)
	expect(t, "agents", r, http.StatusOK, "")
	var out struct{ Agents []opsAgent }
	r.data(t, &out)
	if len(out.Agents) != 1 || out.Agents[0].Week == nil {
		t.Fatalf("agents: %s", r.body)
	}
	got := out.Agents[0]
	w := got.Week
	if w.Visits != 4 || w.NoAccess != 1 || w.Rejected != 1 || w.Flagged != flagged || w.MedianSecondsOnSite == nil ||
		math.Abs(*w.MedianSecondsOnSite-240) > 2 || *w.NoAccessRate != 0.25 || *w.RejectedShare != 0.25 || *w.FlaggedShare != float64(flagged)/4 {
		t.Fatalf("week: want 4 visits, median 240 s (90, 180, 300, 600), 1 no access, 1 rejected, %d flagged: %s", flagged, r.body)
	}
	if got.LastSeenAt == nil || got.OpenTasks != 1 { // the NO_ACCESS address waits for a re-visit
		t.Fatalf("last seen / open tasks: %s", r.body)
	}
}
