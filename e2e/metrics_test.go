package e2e

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/kycfield/kyc/e2e/harness"
	gateway "github.com/kycfield/kyc/gateway/app"
	"github.com/kycfield/kyc/pkg/eventually"
)

// After a sandbox customer is verified and its webhooks delivered, and a
// developer-plan organization has run out of its daily quota, /metrics
// of each process (the gateway's on its admin listener) shows what an
// operator watches: requests by route pattern and status with latency,
// outbox backlog and age, consumer lag, webhook attempts by result, quota
// rejections, verifications by environment and outcome. Every metric the
// Grafana dashboard in deploy/grafana queries is among them.
func TestMetricsOnEveryProcess(t *testing.T) {
	t.Parallel()
	adminAddr := freeAddr(t)
	gw, stop, err := P.StartGateway(context.Background(), func(c *gateway.Config) { c.AdminAddr = adminAddr })
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	api := func(method, path, key string, body any) harness.Response {
		return P.Do(t, harness.Request{Method: method, URL: gw + path, Key: key, Body: body})
	}

	_, key := P.NewKey(t, P.NewOrg(t, "growth"), "test")
	hooks := newHookReceiver(t, nil)
	r := api("POST", "/api/v1/webhooks", key, map[string]any{"url": hooks.URL + "/kyc"})
	if r.Status != http.StatusCreated {
		t.Fatalf("register webhook: %d %s", r.Status, r.Body)
	}
	var e hookEndpoint
	r.Decode(t, &e)
	if r = api("POST", "/api/v1/customers", key, newCustomer(nil)); r.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	eventually.True(t, patience, "the verification.completed webhook", func() bool {
		return len(hooks.ofType(t, e.Secret, "verification.completed")) == 1
	})
	_, small := P.NewKey(t, P.NewOrg(t, "developer"), "test")
	for i := 0; ; i++ {
		if api("GET", "/api/v1/customers?limit=1", small, nil).Status == http.StatusTooManyRequests {
			break
		}
		if i > 200 {
			t.Fatal("the developer plan's quota never ran out")
		}
	}

	scrapes := map[string]string{"gateway": scrapeMetrics(t, "http://"+adminAddr+"/metrics")}
	for name, u := range P.URLs {
		scrapes[name] = scrapeMetrics(t, u+"/metrics")
	}
	want := []struct {
		process, name string
		labels        map[string]string
	}{
		{"gateway", "http_server_request_duration_seconds_count", map[string]string{"http_route": "/api/v1/customers", "http_request_method": "POST", "http_response_status_code": "201"}},
		{"gateway", "http_server_request_duration_seconds_count", map[string]string{"http_route": "/api/v1/customers", "http_request_method": "GET", "http_response_status_code": "429"}},
		{"gateway", "kyc_gateway_quota_rejections_total", nil},
		{"gateway", "kyc_gateway_shed_total", nil},
		{"gateway", "kyc_gateway_api_in_flight", nil},
		{"customer", "http_server_request_duration_seconds_bucket", map[string]string{"http_route": "/api/v1/customers", "http_request_method": "POST", "http_response_status_code": "201"}},
		{"customer", "kyc_outbox_backlog", nil},
		{"customer", "kyc_outbox_oldest_age_seconds", nil},
		{"verification", "kyc_consumer_lag", map[string]string{"consumer": "verification.customers"}},
		{"verification", "kyc_verifications_total", map[string]string{"environment": "test", "outcome": "VERIFIED"}},
		{"webhook", "kyc_consumer_lag", map[string]string{"consumer": "webhook.verification"}},
		{"webhook", "kyc_webhook_attempts_total", map[string]string{"result": "succeeded"}},
	}
	for _, w := range want {
		if !hasSeries(scrapes[w.process], w.name, w.labels) {
			t.Errorf("%s /metrics has no %s%v:\n%s", w.process, w.name, w.labels, grepLines(scrapes[w.process], w.name[:8]))
		}
	}
	// The series' labels never hold a raw path (ids are customer data).
	for name, text := range scrapes {
		if strings.Contains(text, "/api/v1/customers/cus_") {
			t.Errorf("%s /metrics has a raw path with an id", name)
		}
	}

	all := strings.Join(mapValues(scrapes), "\n")
	for _, m := range dashboardMetrics(t) {
		if !hasSeries(all, m, nil) {
			t.Errorf("the dashboard queries %s, which no process exports", m)
		}
	}
}

func scrapeMetrics(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: %d", url, resp.StatusCode)
	}
	return string(b)
}

// hasSeries reports whether the exposition text has a sample of name
// carrying every one of labels.
func hasSeries(text, name string, labels map[string]string) bool {
	for _, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(line, name+"{") && !strings.HasPrefix(line, name+" ") {
			continue
		}
		ok := true
		for k, v := range labels {
			ok = ok && strings.Contains(line, k+`="`+v+`"`)
		}
		if ok {
			return true
		}
	}
	return false
}

// dashboardMetrics lists the metric names the dashboard's queries use.
func dashboardMetrics(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../deploy/grafana/kyc-platform.json")
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
		Templating struct{ List []struct{ Query any } }
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("dashboard: %v", err)
	}
	name := regexp.MustCompile(`\b(?:kyc|http_server)_[a-z0-9_]+`)
	seen := map[string]bool{}
	var out []string
	add := func(expr string) {
		for _, m := range name.FindAllString(expr, -1) {
			if !seen[m] {
				seen[m] = true
				out = append(out, m)
			}
		}
	}
	for _, p := range d.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			add(tg.Expr)
		}
	}
	for _, v := range d.Templating.List {
		if q, ok := v.Query.(string); ok {
			add(q)
		}
	}
	if len(out) < 8 {
		t.Fatalf("the dashboard queries only %v", out)
	}
	return out
}

func grepLines(text, sub string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, sub) && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func mapValues(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}
