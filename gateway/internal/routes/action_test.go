package routes

import (
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/kycfield/kyc/api"
	"github.com/kycfield/kyc/pkg/principal"
)

// actionName is an org.action's action (api/events/org-audit.json).
var actionName = regexp.MustCompile(`^[a-z]+(\.[a-z_]+)+$`)

// writes reports whether rt changes something or hands out a secret: what
// a viewer is refused, and what the audit log records.
func writes(rt Route) bool {
	return rt.Method != "GET" || rt.Scope == principal.ScopeWrite
}

// Every lender's write route names the action its change is audited as:
// the gateway names a member's refused /api/v1 request with it, so a
// route without one would be refused under no name (or a made-up one).
func TestEveryWriteRouteNamesItsAuditAction(t *testing.T) {
	for _, rt := range Table {
		lender := strings.HasPrefix(rt.Pattern, "/api/v1/") || strings.HasPrefix(rt.Pattern, "/dashboard/v1/")
		switch {
		case !lender && rt.Action != "":
			t.Errorf("%s %s: action %q outside an organization's API", rt.Method, rt.Pattern, rt.Action)
		case lender && writes(rt) && rt.Action == "":
			t.Errorf("%s %s writes but names no audit action", rt.Method, rt.Pattern)
		case rt.Action == NotAudited && strings.HasPrefix(rt.Pattern, "/api/v1/"):
			t.Errorf("%s %s: every public-API write is audited, and its refusal needs a name", rt.Method, rt.Pattern)
		case rt.Action != "" && rt.Action != NotAudited && !actionName.MatchString(rt.Action):
			t.Errorf("%s %s: action %q is not resource.verb", rt.Method, rt.Pattern, rt.Action)
		}
	}
}

// The introduction's "Audit log: what is audited" lists every route's
// action with its request, so a lender filtering the log by action finds
// the names there.
func TestEveryActionIsInTheAuditedList(t *testing.T) {
	var doc struct {
		Info struct{ Description string } `yaml:"info"`
	}
	if err := yaml.Unmarshal(api.OpenAPI, &doc); err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(doc.Info.Description, "## Audit log: what is audited")
	if !ok {
		t.Fatal(`api/openapi.yaml: no "Audit log: what is audited" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	for _, rt := range Table {
		if rt.Action == "" || rt.Action == NotAudited {
			continue
		}
		row := "| `" + rt.Action + "` | `" + rt.Method + " " + rt.Pattern + "`"
		if !strings.Contains(section, row) {
			t.Errorf("%s %s: no row %q in the audited list", rt.Method, rt.Pattern, row)
		}
	}
}
