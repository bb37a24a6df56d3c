package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/kycfield/kyc/pkg/orgaudit"
	"github.com/kycfield/kyc/pkg/orgaudit/orgaudittest"
	"github.com/kycfield/kyc/services/reporting/internal/report"
)

// Saving the white-labelling is one branding.update naming the actor
// (member and role, or key), the organization and the IP, with what was
// set and what became of the logo (never the image); a refused save (the
// plan, or validation) and a read record nothing.
func TestBrandingUpdatesAreAudited(t *testing.T) {
	t.Parallel()
	f := setup(t)
	who := newTenant("live")
	want := func(user, role, ip string) orgaudittest.Want {
		w := orgaudittest.Want{Topic: orgaudit.Topic, OrgID: who.org, Env: who.env, Action: report.ActionBrandingUpdate, Target: who.org, IP: ip,
			ActorType: orgaudit.ActorKey, ActorID: "key_test"}
		if user != "" {
			w.ActorType, w.ActorID, w.MemberRole = orgaudit.ActorUser, user, role
		}
		return w
	}
	img := logo(t)
	body := `{"displayName":"Zenith Microfinance","accentColour":"#7A1FA2","logo":"` + img + `"}`
	member := []string{"X-Plan", "enterprise", "X-User", "usr_ada", "X-Role", "owner", "X-IP", "203.0.113.7"}
	if r := f.do(t, who, "PUT", "/api/v1/reports/branding", body, member...); r.status != http.StatusOK {
		t.Fatalf("save: %d %s", r.status, r.body)
	}
	got := orgaudittest.One(t, orgaudittest.Actions(t, f.pool), want("usr_ada", "owner", "203.0.113.7"))
	if got.Details["displayName"] != "Zenith Microfinance" || got.Details["accentColour"] != "#7A1FA2" || got.Details["logo"] != "replaced" {
		t.Errorf("details: %v", got.Details)
	}
	if strings.Contains(string(got.Event.Data), img[:40]) {
		t.Errorf("the action carries the logo: %.200s", got.Event.Data)
	}

	refused := []struct{ name, body, plan string }{
		{"below Enterprise", body, "growth"},
		{"invalid", `{"displayName":"Z","accentColour":"purple"}`, "enterprise"},
	}
	for _, c := range refused {
		if r := f.do(t, who, "PUT", "/api/v1/reports/branding", c.body, "X-Plan", c.plan, "X-IP", "198.51.100.4"); r.status < 400 {
			t.Fatalf("%s accepted: %d", c.name, r.status)
		}
	}
	if r := f.get(t, who, "/api/v1/reports/branding", "X-Plan", "enterprise"); r.status != http.StatusOK {
		t.Fatalf("read: %d", r.status)
	}
	if extra := orgaudittest.Since(t, f.pool, 1); len(extra) != 0 {
		t.Fatalf("refused saves or a read were recorded: %+v", extra)
	}

	if r := f.do(t, who, "PUT", "/api/v1/reports/branding", `{"displayName":"Zenith Microfinance","logo":null}`, "X-Plan", "enterprise",
		"X-IP", "198.51.100.4"); r.status != http.StatusOK {
		t.Fatalf("second save: %d %s", r.status, r.body)
	}
	got = orgaudittest.One(t, orgaudittest.Since(t, f.pool, 1), want("", "", "198.51.100.4"))
	if got.Details["logo"] != "removed" {
		t.Errorf("details: %v", got.Details)
	}
}
