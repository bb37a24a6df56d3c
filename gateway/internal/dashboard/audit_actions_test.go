package dashboard

import (
	"os"
	"regexp"
	"testing"

	"github.com/kycfield/kyc/gateway/internal/routes"
)

// The audit page offers action names while the person types its filter:
// a change the log records but the page never suggests is one a person
// has to guess. Every write the route table audits must be offered.
func TestTheAuditPageSuggestsEveryAuditedWrite(t *testing.T) {
	src, err := os.ReadFile("static/audit.js")
	if err != nil {
		t.Fatal(err)
	}
	offered := map[string]bool{}
	for _, m := range regexp.MustCompile(`"([a-z_]+\.[a-z_]*)"`).FindAllStringSubmatch(string(src), -1) {
		offered[m[1]] = true
	}
	for _, r := range routes.Table {
		if r.Method == "GET" || r.Action == "" || r.Action == routes.NotAudited {
			continue
		}
		if !offered[r.Action] {
			t.Errorf("%s %s is audited as %q, which the audit page does not suggest", r.Method, r.Pattern, r.Action)
		}
	}
}
