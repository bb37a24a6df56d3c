package e2e

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"
	"time"

	"github.com/kycfield/kyc/e2e/harness"
)

// browser is a dashboard user: a cookie jar and the CSRF token.
type browser struct {
	t    *testing.T
	http *http.Client
	csrf string
}

func newBrowser(t *testing.T) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, http: &http.Client{Jar: jar, Timeout: 10 * time.Second}}
}

func (b *browser) call(method, path string, body any, hdr ...string) harness.Response {
	b.t.Helper()
	h := map[string]string{}
	if b.csrf != "" {
		h["X-CSRF-Token"] = b.csrf
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		h[hdr[i]] = hdr[i+1]
	}
	return P.Do(b.t, harness.Request{Client: b.http, Method: method, URL: P.GatewayURL + path, Body: body, Header: h})
}

func (b *browser) signUp() (email string, orgID string) {
	b.t.Helper()
	email = fmt.Sprintf("owner%d@lender.ng", rand.Int64())
	r := b.call("POST", "/dashboard/v1/signup", map[string]any{"organizationName": "Lender " + b.t.Name(), "email": email, "password": "correct horse battery"})
	if r.Status != http.StatusCreated {
		b.t.Fatalf("sign up: %d %s", r.Status, r.Body)
	}
	var d struct {
		CSRFToken    string `json:"csrfToken"`
		Organization struct{ ID, Plan string }
	}
	r.Decode(b.t, &d)
	if d.CSRFToken == "" || d.Organization.Plan != "developer" {
		b.t.Fatalf("sign up data: %s", r.Body)
	}
	cookie := r.Header.Get("Set-Cookie")
	if !strings.Contains(cookie, "kyc_session=") || !strings.Contains(cookie, "HttpOnly") || !strings.Contains(cookie, "SameSite=Lax") {
		b.t.Fatalf("session cookie: %q", cookie)
	}
	b.csrf = d.CSRFToken
	return email, d.Organization.ID
}

type newKeyView struct {
	ID, Key, Environment, Status string
	Scopes                       []string
	ExpiresAt                    *string
}

func (b *browser) createKey(env string) (harness.Response, newKeyView) {
	r := b.call("POST", "/dashboard/v1/keys", map[string]any{"environment": env, "scopes": []string{"kyc:read", "kyc:write"}, "name": "backend"})
	var k newKeyView
	if r.Status == http.StatusCreated {
		r.Decode(b.t, &k)
	}
	return r, k
}

func TestDashboardAccountsAndKeys(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	email, _ := b.signUp()
	if r := b.call("GET", "/dashboard/v1/me", nil); r.Status != http.StatusOK || !strings.Contains(string(r.Body), email) {
		t.Fatalf("me: %d %s", r.Status, r.Body)
	}
	// CSRF: a state-changing call without the token is refused.
	token := b.csrf
	b.csrf = ""
	if r, _ := b.createKey("test"); r.Status != http.StatusForbidden || r.Code() != "CSRF_TOKEN_INVALID" {
		t.Fatalf("no csrf token: %d %s", r.Status, r.Body)
	}
	b.csrf = token
	if r := b.call("POST", "/dashboard/v1/keys", map[string]any{"environment": "test", "scopes": []string{"kyc:read"}}, "Sec-Fetch-Site", "cross-site"); r.Status != http.StatusForbidden || r.Code() != "CROSS_ORIGIN_FORBIDDEN" {
		t.Fatalf("cross-site request: %d %s", r.Status, r.Body)
	}
	// Developer plan: sandbox keys only.
	if r, _ := b.createKey("live"); r.Status != http.StatusForbidden || r.Code() != "PLAN_UPGRADE_REQUIRED" {
		t.Fatalf("live key on developer: %d %s", r.Status, r.Body)
	}
	r, testKey := b.createKey("test")
	if r.Status != http.StatusCreated || !strings.HasPrefix(testKey.Key, "mk_test_") || len(testKey.Key) < len("mk_test_")+22 {
		t.Fatalf("create key: %d %s", r.Status, r.Body)
	}
	if r := P.API(t, "GET", "/api/v1/customers", testKey.Key, nil); r.Status != http.StatusOK {
		t.Fatalf("new key: %d %s", r.Status, r.Body)
	}
	list := b.call("GET", "/dashboard/v1/keys", nil)
	if !strings.Contains(string(list.Body), testKey.ID) || strings.Contains(string(list.Body), testKey.Key) || !strings.Contains(string(list.Body), `"displayPrefix":"`+testKey.Key[:12]+`"`) {
		t.Fatalf("key list must show the prefix, never the key: %s", list.Body)
	}
	// Upgrade, then live keys work; downgrade, then they stop.
	if r := b.call("PUT", "/dashboard/v1/plan", map[string]any{"plan": "growth"}); r.Status != http.StatusOK || !strings.Contains(string(r.Body), `"plan":"growth"`) {
		t.Fatalf("upgrade: %d %s", r.Status, r.Body)
	}
	r, liveKey := b.createKey("live")
	if r.Status != http.StatusCreated || !strings.HasPrefix(liveKey.Key, "mk_live_") {
		t.Fatalf("live key on growth: %d %s", r.Status, r.Body)
	}
	if r := P.API(t, "GET", "/api/v1/customers", liveKey.Key, nil); r.Status != http.StatusOK {
		t.Fatalf("live key: %d %s", r.Status, r.Body)
	}
	if r := b.call("PUT", "/dashboard/v1/plan", map[string]any{"plan": "developer"}); r.Status != http.StatusOK {
		t.Fatalf("downgrade: %d %s", r.Status, r.Body)
	}
	waitForStatus(t, P.GatewayURL, liveKey.Key, http.StatusForbidden, "PLAN_UPGRADE_REQUIRED", time.Second)
	if r := P.API(t, "GET", "/api/v1/customers", testKey.Key, nil); r.Status != http.StatusOK {
		t.Fatalf("sandbox key after downgrade: %d", r.Status)
	}
	if r := b.call("PUT", "/dashboard/v1/plan", map[string]any{"plan": "platinum"}); r.Status != http.StatusBadRequest {
		t.Fatalf("unknown plan: %d", r.Status)
	}
	// Revoke from the dashboard.
	if r := b.call("POST", "/dashboard/v1/keys/"+testKey.ID+"/revoke", nil); r.Status != http.StatusOK {
		t.Fatalf("revoke: %d %s", r.Status, r.Body)
	}
	waitUntilRefused(t, P.GatewayURL, testKey.Key, time.Second)
	// Another organization's key is not found.
	other := newBrowser(t)
	other.signUp()
	if r := other.call("POST", "/dashboard/v1/keys/"+liveKey.ID+"/revoke", nil); r.Status != http.StatusNotFound {
		t.Fatalf("foreign key: %d %s", r.Status, r.Body)
	}
	// Log out: the session no longer works.
	if r := b.call("POST", "/dashboard/v1/logout", nil); r.Status != http.StatusOK {
		t.Fatalf("logout: %d", r.Status)
	}
	if r := b.call("GET", "/dashboard/v1/me", nil); r.Status != http.StatusUnauthorized || r.Code() != "SESSION_REQUIRED" {
		t.Fatalf("after logout: %d %s", r.Status, r.Body)
	}
	// Log in again.
	again := newBrowser(t)
	if r := again.call("POST", "/dashboard/v1/login", map[string]any{"email": strings.ToUpper(email), "password": "correct horse battery"}); r.Status != http.StatusOK {
		t.Fatalf("login: %d %s", r.Status, r.Body)
	}
	if r := again.call("GET", "/dashboard/v1/me", nil); r.Status != http.StatusOK {
		t.Fatalf("me after login: %d", r.Status)
	}
}

func TestKeyRoll(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	b.signUp()
	_, old := b.createKey("test")
	r := b.call("POST", "/dashboard/v1/keys/"+old.ID+"/roll", map[string]any{"gracePeriodHours": 24})
	var rolled struct {
		Key      newKeyView `json:"key"`
		Previous newKeyView `json:"previous"`
	}
	r.Decode(t, &rolled)
	if r.Status != http.StatusCreated || rolled.Previous.ExpiresAt == nil || rolled.Previous.Status != "expiring" || rolled.Key.Key == "" {
		t.Fatalf("roll: %d %s", r.Status, r.Body)
	}
	for _, k := range []string{old.Key, rolled.Key.Key} {
		if r := P.API(t, "GET", "/api/v1/customers", k, nil); r.Status != http.StatusOK {
			t.Fatalf("during grace: %d %s", r.Status, r.Body)
		}
	}
	// Rolling the replacement with no grace stops it at once.
	r = b.call("POST", "/dashboard/v1/keys/"+rolled.Key.ID+"/roll", map[string]any{"gracePeriodHours": 0})
	if r.Status != http.StatusCreated {
		t.Fatalf("roll 0: %d %s", r.Status, r.Body)
	}
	waitUntilRefused(t, P.GatewayURL, rolled.Key.Key, time.Second)
	for _, h := range []int{-1, 73} {
		if r := b.call("POST", "/dashboard/v1/keys/"+old.ID+"/roll", map[string]any{"gracePeriodHours": h}); r.Status != http.StatusBadRequest {
			t.Fatalf("grace %d: %d", h, r.Status)
		}
	}
}

func TestLoginIsThrottled(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	email, _ := b.signUp()
	anon := newBrowser(t)
	for i := range 5 {
		if r := anon.call("POST", "/dashboard/v1/login", map[string]any{"email": email, "password": "wrong password!"}); r.Status != http.StatusUnauthorized || r.Code() != "INVALID_CREDENTIALS" {
			t.Fatalf("attempt %d: %d %s", i, r.Status, r.Body)
		}
	}
	r := anon.call("POST", "/dashboard/v1/login", map[string]any{"email": email, "password": "correct horse battery"})
	if r.Status != http.StatusTooManyRequests || r.Code() != "TOO_MANY_ATTEMPTS" || r.Header.Get("Retry-After") == "" {
		t.Fatalf("after 5 failures: %d %s", r.Status, r.Body)
	}
	if r := anon.call("POST", "/dashboard/v1/login", map[string]any{"email": "nobody@lender.ng", "password": "whatever it is"}); r.Status != http.StatusUnauthorized {
		t.Fatalf("unknown user: %d", r.Status)
	}
	if r := anon.call("POST", "/dashboard/v1/signup", map[string]any{"organizationName": "X Org", "email": email, "password": "another password"}); r.Status != http.StatusConflict || r.Code() != "EMAIL_TAKEN" {
		t.Fatalf("duplicate sign-up: %d %s", r.Status, r.Body)
	}
	if r := anon.call("POST", "/dashboard/v1/signup", map[string]any{"organizationName": "X", "email": "bad", "password": "short"}); len(details(r)) != 3 {
		t.Fatalf("sign-up validation: %s", r.Body)
	}
}

// waitForStatus polls until key gets status with code (plan changes
// propagate by event like revocations).
