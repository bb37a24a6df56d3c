package e2e

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kycfield/kyc/e2e/harness"
	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/eventually"
	"github.com/kycfield/kyc/pkg/kafkatest"
)

// phone returns a fresh valid Nigerian number.
func phone() string { return fmt.Sprintf("+23480%08d", rand.IntN(100_000_000)) }

func newCustomer(extra map[string]any) map[string]any {
	c := map[string]any{
		"firstName": "Ngozi", "lastName": "Okafor", "phone": phone(),
		"addresses": []map[string]any{{"streetName": "Adeola Odeku Street", "city": "Lagos", "state": "Lagos"}},
	}
	for k, v := range extra {
		c[k] = v
	}
	return c
}

type customerView struct {
	ID        string `json:"id"`
	FirstName string `json:"firstName"`
	Phone     string `json:"phone"`
	Status    string `json:"status"`
	Addresses []struct {
		ID      string `json:"id"`
		Status  string `json:"status"`
		Country string `json:"country"`
	} `json:"addresses"`
}

func TestCreateThenReadAndEventReachesKafka(t *testing.T) {
	t.Parallel()
	org := P.NewOrg(t, "growth")
	_, key := P.NewKey(t, org, "test")
	events := kafkatest.Follow(t, P.Bus, P.Bus.Topic(event.TopicCustomer))

	r := P.API(t, "POST", "/api/v1/customers", key, newCustomer(nil))
	if r.Status != http.StatusCreated || !r.Env.Status {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	var created customerView
	r.Decode(t, &created)
	if !strings.HasPrefix(created.ID, "cus_") || created.Status != "PENDING" || len(created.Addresses) != 1 ||
		created.Addresses[0].Country != "Nigeria" || created.Addresses[0].Status != "PENDING" {
		t.Fatalf("unexpected customer: %s", r.Body)
	}

	got := P.API(t, "GET", "/api/v1/customers/"+created.ID, key, nil)
	if got.Status != http.StatusOK {
		t.Fatalf("read right after create: %d %s", got.Status, got.Body)
	}
	var read customerView
	got.Decode(t, &read)
	if read.ID != created.ID || read.Phone != created.Phone || read.Addresses[0].ID != created.Addresses[0].ID {
		t.Fatalf("read %+v, created %+v", read, created)
	}

	e := events.WaitFor(func(e event.Event) bool {
		return e.Type == "customer.created" && strings.Contains(string(e.Data), created.ID)
	}, 10*time.Second)
	if e.OrgID != org || e.Environment != "test" || e.ID == "" || e.Time.IsZero() {
		t.Fatalf("event envelope: %+v", e)
	}
	var data struct {
		CustomerID string `json:"customerId"`
	}
	if err := json.Unmarshal(e.Data, &data); err != nil || data.CustomerID != created.ID {
		t.Fatalf("event data: %s", e.Data)
	}
}

func TestAuthenticationFailures(t *testing.T) {
	t.Parallel()
	org := P.NewOrg(t, "growth")
	keyID, key := P.NewKey(t, org, "test")
	if r := P.API(t, "GET", "/api/v1/customers", key, nil); r.Status != http.StatusOK {
		t.Fatalf("valid key refused: %d %s", r.Status, r.Body)
	}
	if r := P.Admin(t, "POST", "/admin/v1/keys/"+keyID+"/revoke", nil); r.Status != http.StatusOK {
		t.Fatalf("revoke: %d %s", r.Status, r.Body)
	}
	waitUntilRefused(t, P.GatewayURL, key, time.Second)
	cases := map[string]map[string]string{
		"no header":    {},
		"not bearer":   {"Authorization": "Basic " + key},
		"unknown key":  {"Authorization": "Bearer mk_test_" + strings.Repeat("x", 32)},
		"wrong prefix": {"Authorization": "Bearer sk_test_abc"},
		"empty bearer": {"Authorization": "Bearer "},
		"revoked key":  {"Authorization": "Bearer " + key},
		"env mismatch": {"Authorization": "Bearer mk_live_" + strings.TrimPrefix(key, "mk_test_")},
	}
	for name, hdr := range cases {
		t.Run(name, func(t *testing.T) {
			r := P.Do(t, harness.Request{Method: "GET", URL: P.GatewayURL + "/api/v1/customers", Header: hdr})
			if r.Status != http.StatusUnauthorized || r.Code() != "UNAUTHORIZED" || r.Env.Error.Message != "Missing or invalid API key" {
				t.Fatalf("got %d %s", r.Status, r.Body)
			}
			if r.Env.Status || r.Env.Meta.RequestID == "" || r.Env.Meta.RequestID != r.Header.Get("X-Request-Id") {
				t.Fatalf("envelope/meta wrong: %s (X-Request-Id %q)", r.Body, r.Header.Get("X-Request-Id"))
			}
		})
	}
}

func TestScopeIsEnforced(t *testing.T) {
	t.Parallel()
	org := P.NewOrg(t, "growth")
	_, readOnly := P.NewKey(t, org, "test", "kyc:read")
	_, writeOnly := P.NewKey(t, org, "test", "kyc:write")
	if r := P.API(t, "POST", "/api/v1/customers", readOnly, newCustomer(nil)); r.Status != http.StatusForbidden || r.Code() != "INSUFFICIENT_SCOPE" {
		t.Fatalf("read key writing: %d %s", r.Status, r.Body)
	}
	if r := P.API(t, "GET", "/api/v1/customers", writeOnly, nil); r.Status != http.StatusForbidden || r.Code() != "INSUFFICIENT_SCOPE" {
		t.Fatalf("write key reading: %d %s", r.Status, r.Body)
	}
	if r := P.API(t, "GET", "/api/v1/customers", readOnly, nil); r.Status != http.StatusOK {
		t.Fatalf("read key reading: %d %s", r.Status, r.Body)
	}
}

func TestIsolationBetweenOrganizationsAndEnvironments(t *testing.T) {
	t.Parallel()
	orgA, orgB := P.NewOrg(t, "growth"), P.NewOrg(t, "growth")
	_, aTest := P.NewKey(t, orgA, "test")
	_, aLive := P.NewKey(t, orgA, "live")
	_, bTest := P.NewKey(t, orgB, "test")
	r := P.API(t, "POST", "/api/v1/customers", aTest, newCustomer(nil))
	if r.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	var c customerView
	r.Decode(t, &c)
	for name, key := range map[string]string{"other org": bTest, "other environment": aLive} {
		for _, call := range []struct{ method, path string }{
			{"GET", "/api/v1/customers/" + c.ID}, {"PUT", "/api/v1/customers/" + c.ID}, {"DELETE", "/api/v1/customers/" + c.ID},
			{"POST", "/api/v1/customers/" + c.ID + "/addresses"},
		} {
			var body any
			switch call.method {
			case "PUT":
				body = map[string]any{"occupation": "Trader"}
			case "POST":
				body = map[string]any{"streetName": "Allen Avenue", "city": "Ikeja", "state": "Lagos"}
			}
			if r := P.API(t, call.method, call.path, key, body); r.Status != http.StatusNotFound || r.Code() != "NOT_FOUND" {
				t.Errorf("%s %s %s: %d %s", name, call.method, call.path, r.Status, r.Body)
			}
		}
		list := P.API(t, "GET", "/api/v1/customers", key, nil)
		if strings.Contains(string(list.Body), c.ID) {
			t.Errorf("%s lists the customer: %s", name, list.Body)
		}
	}
	if r := P.API(t, "GET", "/api/v1/customers/"+c.ID, aTest, nil); r.Status != http.StatusOK {
		t.Fatalf("owner lost access: %d", r.Status)
	}
}

func TestUnknownPathsMethodsAndRequestIDs(t *testing.T) {
	t.Parallel()
	org := P.NewOrg(t, "growth")
	_, key := P.NewKey(t, org, "test")
	r := P.API(t, "GET", "/api/v1/nothing-here", key, nil)
	if r.Status != http.StatusNotFound || r.Code() != "NOT_FOUND" || r.Env.Meta.RequestID != r.Header.Get("X-Request-Id") {
		t.Fatalf("unknown path: %d %s", r.Status, r.Body)
	}
	r = P.API(t, "PATCH", "/api/v1/customers", key, nil)
	if r.Status != http.StatusMethodNotAllowed || r.Code() != "METHOD_NOT_ALLOWED" || !strings.Contains(r.Header.Get("Allow"), "POST") {
		t.Fatalf("wrong method: %d %s allow=%q", r.Status, r.Body, r.Header.Get("Allow"))
	}
	echo := P.Do(t, harness.Request{Method: "GET", URL: P.GatewayURL + "/api/v1/customers", Key: key, Header: map[string]string{"X-Request-Id": "client-trace.42"}})
	if echo.Header.Get("X-Request-Id") != "client-trace.42" || echo.Env.Meta.RequestID != "client-trace.42" {
		t.Fatalf("request id not echoed: %q %q", echo.Header.Get("X-Request-Id"), echo.Env.Meta.RequestID)
	}
	bad := P.Do(t, harness.Request{Method: "GET", URL: P.GatewayURL + "/api/v1/customers", Key: key, Header: map[string]string{"X-Request-Id": "bad id with spaces"}})
	if id := bad.Header.Get("X-Request-Id"); id == "" || strings.Contains(id, " ") || bad.Env.Meta.RequestID != id {
		t.Fatalf("malformed request id kept: %q / %q", id, bad.Env.Meta.RequestID)
	}
	if _, err := time.Parse(time.RFC3339, echo.Env.Meta.Timestamp); err != nil || !strings.HasSuffix(echo.Env.Meta.Timestamp, "Z") {
		t.Fatalf("meta.timestamp %q is not ISO 8601 UTC", echo.Env.Meta.Timestamp)
	}
}

func TestBodyOverOneMebibyteIsRefused(t *testing.T) {
	t.Parallel()
	org := P.NewOrg(t, "growth")
	_, key := P.NewKey(t, org, "test")
	big := `{"firstName":"` + strings.Repeat("a", 1<<20) + `"}`
	r := P.API(t, "POST", "/api/v1/customers", key, big)
	if r.Status != http.StatusRequestEntityTooLarge || r.Code() != "PAYLOAD_TOO_LARGE" {
		t.Fatalf("got %d %.200s", r.Status, r.Body)
	}
}

func TestOpenAPIIsServedWithoutAuth(t *testing.T) {
	t.Parallel()
	r := P.Do(t, harness.Request{Method: "GET", URL: P.GatewayURL + "/api/v1/openapi.yaml"})
	if r.Status != http.StatusOK || !strings.HasPrefix(string(r.Body), "openapi: 3.1") {
		t.Fatalf("got %d %.100s", r.Status, r.Body)
	}
}

// waitUntilRefused polls until key gets 401 at gateway, failing after
// within; it returns how long it took.
func waitUntilRefused(t *testing.T, gateway, key string, within time.Duration) time.Duration {
	t.Helper()
	return waitForStatus(t, gateway, key, http.StatusUnauthorized, "UNAUTHORIZED", within)
}

// waitForStatus polls a list request with key until it is answered with
// status and code, and returns how long that took; it fails after within.
func waitForStatus(t *testing.T, gateway, key string, status int, code string, within time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	eventually.Value(t, within, fmt.Sprintf("%d %s", status, code), func() (string, bool) {
		r := P.Do(t, reqList(gateway, key))
		return fmt.Sprintf("%d %s", r.Status, r.Body), r.Status == status && r.Code() == code
	})
	return time.Since(start)
}

func reqList(gateway, key string) harness.Request {
	return harness.Request{Method: "GET", URL: gateway + "/api/v1/customers?limit=1", Key: key}
}

// Services trust only the gateway: a call that bypasses it, or forges or
// replays its principal, is refused.
func TestServicesRefuseCallsWithoutAValidPrincipal(t *testing.T) {
	t.Parallel()
	for _, svc := range []string{"customer", "auth-billing", "document", "verification", "reporting"} {
		for _, hdr := range []map[string]string{
			{},
			{"X-Kyc-Principal": "eyJraW5kIjoiYXBpa2V5In0.forged"},
		} {
			path := map[string]string{"customer": "/api/v1/customers", "auth-billing": "/api/v1/billing/usage", "document": "/api/v1/customers/cus_x/documents",
				"verification": "/api/v1/verification/stats", "reporting": "/api/v1/customers/cus_x/report"}[svc]
			method := "GET"
			if svc == "document" {
				method = "POST"
			}
			r := P.Do(t, harness.Request{Method: method, URL: P.URLs[svc] + path, Header: hdr})
			if r.Status != http.StatusUnauthorized || r.Code() != "UNAUTHORIZED" {
				t.Errorf("%s %s with %v: %d %s", svc, path, hdr, r.Status, r.Body)
			}
		}
		if r := P.Do(t, harness.Request{Method: "GET", URL: P.URLs[svc] + "/healthz"}); r.Status != http.StatusOK {
			t.Errorf("%s /healthz: %d", svc, r.Status)
		}
		if r := P.Do(t, harness.Request{Method: "GET", URL: P.URLs[svc] + "/readyz"}); r.Status != http.StatusOK {
			t.Errorf("%s /readyz: %d %s", svc, r.Status, r.Body)
		}
	}
	// Every context's routes are served behind the gateway (the report of
	// a malformed id is the reporting service's 404).
	_, key := P.NewKey(t, P.NewOrg(t, "growth"), "test")
	for _, p := range []string{"/api/v1/customers/cus_x/report"} {
		if r := P.API(t, "GET", p, key, nil); r.Status != http.StatusNotFound || r.Code() != "NOT_FOUND" {
			t.Errorf("%s: %d %s", p, r.Status, r.Body)
		}
	}
}
