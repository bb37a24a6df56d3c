package httpapi_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/ids"
	"github.com/kycfield/kyc/services/webhook/internal/httpapi"
	"github.com/kycfield/kyc/services/webhook/internal/webhook"
)

func TestEndpointLifecycle(t *testing.T) {
	t.Parallel()
	f := setup(t, options{})
	who := newTenant()
	e := f.endpoint(who, "http://127.0.0.1:1/hook", map[string]any{"description": "Loans team", "events": []string{"verification.completed"}})
	if !strings.HasPrefix(e.Secret, "whsec_") || len(e.Secret) < 6+32 || !e.Enabled || e.Description != "Loans team" ||
		len(e.Events) != 1 || e.Events[0] != "verification.completed" || !ids.Valid("whe", e.ID) {
		t.Fatalf("created %+v", e)
	}
	// The secret is shown on creation only, and is not stored in clear.
	got := decode[httpapi.Endpoint](t, f.call(who, "GET", "/api/v1/webhooks/"+e.ID, nil))
	if got.Secret != "" || got.URL != e.URL {
		t.Fatalf("read back %+v", got)
	}
	// Revealed on request (the gateway asks kyc:write for it).
	if got := decode[httpapi.Endpoint](t, f.call(who, "GET", "/api/v1/webhooks/"+e.ID+"/secret", nil)); got.Secret != e.Secret {
		t.Fatalf("revealed %q, created with %q", got.Secret, e.Secret)
	}
	var raw []byte
	if err := f.pool.QueryRow(context.Background(), `SELECT secret FROM endpoints WHERE id = $1`, e.ID).Scan(&raw); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte(strings.TrimPrefix(e.Secret, "whsec_"))) || bytes.Contains(raw, []byte(e.Secret)) {
		t.Fatal("secret stored in clear")
	}
	r := f.call(who, "PATCH", "/api/v1/webhooks/"+e.ID, map[string]any{"events": []string{"*"}, "enabled": false, "description": ""})
	up := decode[httpapi.Endpoint](t, r)
	if r.status != http.StatusOK || up.Enabled || up.Events[0] != "*" || up.Description != "" {
		t.Fatalf("patched %d %+v", r.status, up)
	}
	list := decode[struct{ Webhooks []httpapi.Endpoint }](t, f.call(who, "GET", "/api/v1/webhooks", nil))
	if len(list.Webhooks) != 1 || list.Webhooks[0].ID != e.ID || list.Webhooks[0].Secret != "" {
		t.Fatalf("list %+v", list)
	}
	// Another organization, or the other environment, sees nothing.
	for _, other := range []tenant{newTenant(), {who.org, "live"}} {
		for _, m := range []string{"GET", "DELETE"} {
			if r := f.call(other, m, "/api/v1/webhooks/"+e.ID, nil); r.status != http.StatusNotFound || r.code() != apperr.CodeNotFound {
				t.Fatalf("%s as %v: %d %s", m, other, r.status, r.body)
			}
		}
		if r := f.call(other, "GET", "/api/v1/webhooks/"+e.ID+"/secret", nil); r.status != http.StatusNotFound {
			t.Fatalf("reveal as %v: %d", other, r.status)
		}
		if r := f.call(other, "POST", "/api/v1/webhooks/"+e.ID+"/rotate-secret", nil); r.status != http.StatusNotFound {
			t.Fatalf("rotate as %v: %d", other, r.status)
		}
	}
	if r := f.call(who, "DELETE", "/api/v1/webhooks/"+e.ID, nil); r.status != http.StatusOK {
		t.Fatalf("delete: %d %s", r.status, r.body)
	}
	if r := f.call(who, "GET", "/api/v1/webhooks/"+e.ID, nil); r.status != http.StatusNotFound {
		t.Fatalf("after delete: %d", r.status)
	}
	if r := f.call(who, "GET", "/api/v1/webhooks/whe_nope", nil); r.status != http.StatusNotFound {
		t.Fatalf("malformed id: %d", r.status)
	}
}

func TestEndpointInputErrors(t *testing.T) {
	t.Parallel()
	f := setup(t, options{})
	who := newTenant()
	cases := []struct {
		name string
		body any
		code string
	}{
		{"missing url", map[string]any{}, apperr.CodeValidation},
		{"url not a string", map[string]any{"url": 5}, apperr.CodeValidation},
		{"unknown member", map[string]any{"url": "http://127.0.0.1/", "retries": 3}, apperr.CodeValidation},
		{"secret is generated", map[string]any{"url": "http://127.0.0.1/", "secret": "whsec_x"}, apperr.CodeValidation},
		{"unknown event", map[string]any{"url": "http://127.0.0.1/", "events": []string{"customer.created"}}, apperr.CodeValidation},
		{"ftp", map[string]any{"url": "ftp://127.0.0.1/"}, webhook.CodeInvalidWebhookURL},
	}
	for _, c := range cases {
		if r := f.call(who, "POST", "/api/v1/webhooks", c.body); r.status != http.StatusBadRequest || r.code() != c.code {
			t.Errorf("%s: %d %s", c.name, r.status, r.body)
		}
	}
	live := tenant{who.org, "live"}
	if r := f.call(live, "POST", "/api/v1/webhooks", map[string]any{"url": "http://127.0.0.1/"}); r.code() != webhook.CodeInvalidWebhookURL {
		t.Errorf("http in live: %d %s", r.status, r.body)
	}
	e := f.endpoint(who, "http://127.0.0.1:1/", nil)
	for _, q := range []string{"?limit=0", "?limit=101", "?limit=x", "?status=failed", "?eventType=x", "?cursor=abc"} {
		if r := f.call(who, "GET", "/api/v1/webhooks/"+e.ID+"/deliveries"+q, nil); r.status != http.StatusBadRequest || r.code() != apperr.CodeValidation {
			t.Errorf("deliveries%s: %d %s", q, r.status, r.body)
		}
	}
	for _, body := range []any{map[string]any{}, map[string]any{"since": "yesterday"}, map[string]any{"since": "2999-01-01T00:00:00Z"}} {
		if r := f.call(who, "POST", "/api/v1/webhooks/"+e.ID+"/recover", body); r.status != http.StatusBadRequest {
			t.Errorf("recover %v: %d %s", body, r.status, r.body)
		}
	}
	if r := f.call(who, "POST", "/api/v1/webhooks/"+e.ID+"/deliveries/dlv_x/retry", nil); r.status != http.StatusNotFound {
		t.Errorf("retry unknown delivery: %d", r.status)
	}
}

// Twenty concurrent creates leave exactly ten endpoints.
func TestAtMostTenEndpointsUnderConcurrency(t *testing.T) {
	t.Parallel()
	f := setup(t, options{})
	who := newTenant()
	var mu sync.Mutex
	codes := map[int]int{}
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := f.call(who, "POST", "/api/v1/webhooks", map[string]any{"url": "http://127.0.0.1:1/"})
			mu.Lock()
			codes[r.status]++
			if r.status == http.StatusConflict && r.code() != webhook.CodeEndpointLimit {
				t.Errorf("conflict code %s", r.code())
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	if codes[http.StatusCreated] != 10 || codes[http.StatusConflict] != 10 {
		t.Fatalf("statuses %v", codes)
	}
	// The other environment has its own ten.
	if r := f.call(tenant{who.org, "live"}, "POST", "/api/v1/webhooks", map[string]any{"url": "https://hooks.example.com/"}); r.status != http.StatusCreated {
		t.Fatalf("live: %d %s", r.status, r.body)
	}
}

// With private targets off, every SSRF spelling is refused at
// registration.
func TestPrivateTargetsAreRefusedAtRegistration(t *testing.T) {
	t.Parallel()
	f := setup(t, options{strict: true})
	who := newTenant()
	for _, u := range []string{"http://127.0.0.1/", "http://10.0.0.1/", "http://169.254.169.254/latest/meta-data", "http://100.64.0.1/",
		"http://[::1]/", "http://[::ffff:127.0.0.1]/", "http://rebind.example.com/", "http://localhost/", "http://0177.0.0.1/",
		"http://[64:ff9b::a9fe:a9fe]/", "http://[2002:a9fe:a9fe::1]/", "http://[::ffff:169.254.169.254]/", "http://[::ffff:10.0.0.1]/",
		"http://nat64.example.com/", "http://6to4.example.com/", "http://mapped.example.com/", "http://mapped10.example.com/"} {
		if r := f.call(who, "POST", "/api/v1/webhooks", map[string]any{"url": u}); r.status != http.StatusBadRequest || r.code() != webhook.CodeInvalidWebhookURL {
			t.Errorf("%s: %d %s", u, r.status, r.body)
		}
	}
	if r := f.call(who, "POST", "/api/v1/webhooks", map[string]any{"url": "https://hooks.example.com/kyc"}); r.status != http.StatusCreated {
		t.Fatalf("public host: %d %s", r.status, r.body)
	}
}

// WEBHOOK_ALLOW_PRIVATE (on in this fixture, as in make run) opens
// private targets to sandbox endpoints only: a live endpoint is held to
// public addresses, at creation and on update.
func TestPrivateTargetsAreForSandboxOnly(t *testing.T) {
	t.Parallel()
	f := setup(t, options{})
	who := newTenant()
	live := tenant{who.org, "live"}
	for _, u := range []string{"https://10.0.0.1/", "https://127.0.0.1:8443/", "https://rebind.example.com/", "https://[::ffff:10.0.0.1]/",
		"https://nat64.example.com/", "https://localhost/"} {
		if r := f.call(live, "POST", "/api/v1/webhooks", map[string]any{"url": u}); r.status != http.StatusBadRequest || r.code() != webhook.CodeInvalidWebhookURL {
			t.Errorf("live %s: %d %s", u, r.status, r.body)
		}
		if r := f.call(who, "POST", "/api/v1/webhooks", map[string]any{"url": u}); r.status != http.StatusCreated {
			t.Errorf("sandbox %s: %d %s", u, r.status, r.body)
		}
	}
	e := f.endpoint(live, "https://hooks.example.com/kyc", nil)
	if r := f.call(live, "PATCH", "/api/v1/webhooks/"+e.ID, map[string]any{"url": "https://10.0.0.1/"}); r.status != http.StatusBadRequest ||
		r.code() != webhook.CodeInvalidWebhookURL {
		t.Errorf("live update to a private address: %d %s", r.status, r.body)
	}
}
