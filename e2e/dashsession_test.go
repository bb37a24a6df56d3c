package e2e

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/kycfield/kyc/e2e/harness"
)

// TestDashboardSessionCallsPublicAPI: the dashboard page calls /api/v1
// with its session cookie, the CSRF token and the environment it shows;
// the same handlers answer as for a key, and a cookie alone gets nothing.
func TestDashboardSessionCallsPublicAPI(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	b.signUp()
	test := []string{"KYC-Environment", "test"}
	create := newCustomer(nil)

	r := b.call("POST", "/api/v1/customers", create, test...)
	if r.Status != http.StatusCreated {
		t.Fatalf("create from the dashboard: %d %s", r.Status, r.Body)
	}
	var c customerView
	r.Decode(t, &c)
	if r := b.call("GET", "/api/v1/customers/"+c.ID, nil, test...); r.Status != http.StatusOK {
		t.Fatalf("read from the dashboard: %d %s", r.Status, r.Body)
	}
	if r.Header.Get("RateLimit-Limit") == "" {
		t.Fatalf("a session's calls count against the daily quota like a key's: %v", r.Header)
	}

	// The environment chosen in the page separates data as keys do.
	if r := b.call("GET", "/api/v1/customers/"+c.ID, nil, "KYC-Environment", "live"); r.Status != http.StatusForbidden || r.Code() != "PLAN_UPGRADE_REQUIRED" {
		t.Fatalf("live on the developer plan: %d %s", r.Status, r.Body)
	}
	if r := b.call("GET", "/api/v1/customers", nil); r.Status != http.StatusBadRequest || r.Code() != "VALIDATION_ERROR" {
		t.Fatalf("no environment chosen: %d %s", r.Status, r.Body)
	}

	// A cookie without the CSRF token (what a cross-site form or a
	// top-level navigation sends) can neither change nor read anything.
	token := b.csrf
	b.csrf = ""
	if r := b.call("POST", "/api/v1/customers", create, test...); r.Status != http.StatusForbidden || r.Code() != "CSRF_TOKEN_INVALID" {
		t.Fatalf("create without CSRF: %d %s", r.Status, r.Body)
	}
	if r := b.call("DELETE", "/api/v1/customers/"+c.ID, nil, test...); r.Status != http.StatusForbidden {
		t.Fatalf("delete without CSRF: %d %s", r.Status, r.Body)
	}
	if r := b.call("GET", "/api/v1/customers/"+c.ID, nil, test...); r.Status != http.StatusForbidden || r.Code() != "CSRF_TOKEN_INVALID" {
		t.Fatalf("read without CSRF: %d %s", r.Status, r.Body)
	}
	b.csrf = token
	list := b.call("GET", "/api/v1/customers", nil, test...)
	var page struct {
		Customers []customerView `json:"customers"`
	}
	list.Decode(t, &page)
	if len(page.Customers) != 1 {
		t.Fatalf("the refused create must not exist: %s", list.Body)
	}

	// Another organization's session does not see the customer.
	other := newBrowser(t)
	other.signUp()
	if r := other.call("GET", "/api/v1/customers/"+c.ID, nil, test...); r.Status != http.StatusNotFound {
		t.Fatalf("another organization's customer: %d %s", r.Status, r.Body)
	}

	// An API key in the Authorization header wins over the cookie.
	if r := P.Do(t, harness.Request{Client: b.http, Method: "GET", URL: P.GatewayURL + "/api/v1/customers", Key: "mk_test_not-a-real-key",
		Header: map[string]string{"X-CSRF-Token": token, "KYC-Environment": "test"}}); r.Status != http.StatusUnauthorized || r.Code() != "UNAUTHORIZED" {
		t.Fatalf("a bad key next to a good session: %d %s", r.Status, r.Body)
	}

	// After log-out the cookie is worth nothing.
	gw, _ := url.Parse(P.GatewayURL)
	stale := b.http.Jar.Cookies(gw)
	if r := b.call("POST", "/dashboard/v1/logout", nil); r.Status != http.StatusOK {
		t.Fatalf("logout: %d", r.Status)
	}
	b.http.Jar.SetCookies(gw, stale)
	if r := b.call("GET", "/api/v1/customers", nil, test...); r.Status != http.StatusUnauthorized || r.Code() != "SESSION_REQUIRED" {
		t.Fatalf("after logout: %d %s", r.Status, r.Body)
	}
}
