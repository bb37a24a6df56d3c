package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kycfield/kyc/pkg/config"
	"github.com/kycfield/kyc/pkg/kafkatest"
	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/pkg/pgtest"
	"github.com/kycfield/kyc/pkg/redistest"
	"github.com/kycfield/kyc/services/auth-billing/app"
)

// startAuthBilling runs the real service on fresh stores.
func startAuthBilling(t *testing.T) string {
	t.Helper()
	var cfg app.Config
	if err := config.Load(&cfg); err != nil {
		t.Fatal(err)
	}
	bus := kafkatest.Config(t)
	_, prefix := redistest.New(t)
	cfg.KafkaBrokers, cfg.KafkaTopicPrefix = bus.Brokers, bus.TopicPrefix
	cfg.HTTPAddr, cfg.DatabaseURL, cfg.AdminToken, cfg.BcryptCost = "127.0.0.1:0", pgtest.CreateDB(t), "test-admin-token", 4
	cfg.RedisURL, cfg.RedisPrefix, cfg.ShutdownTimeout = redistest.URL(), prefix, time.Second
	ctx, cancel := context.WithCancel(context.Background())
	addr := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- app.Run(ctx, cfg, logging.Discard(), func(a string) { addr <- a }) }()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case a := <-addr:
		return "http://" + a
	case err := <-done:
		t.Fatalf("auth-billing exited: %v", err)
	case <-time.After(time.Minute):
		t.Fatal("auth-billing did not start")
	}
	return ""
}

func ctl(t *testing.T, base string, args ...string) (map[string]any, error) {
	t.Helper()
	var out bytes.Buffer
	err := run(append([]string{"--url", base, "--token", "test-admin-token"}, args...), &out)
	var v map[string]any
	if err == nil {
		if jerr := json.Unmarshal(out.Bytes(), &v); jerr != nil {
			t.Fatalf("output is not JSON: %s", out.String())
		}
	}
	return v, err
}

func TestKycctl(t *testing.T) {
	base := startAuthBilling(t)
	org, err := ctl(t, base, "orgs", "create", "--name", "Acme Lending", "--plan", "developer")
	if err != nil || !strings.HasPrefix(org["id"].(string), "org_") || org["plan"] != "developer" {
		t.Fatalf("orgs create: %v %v", org, err)
	}
	id := org["id"].(string)
	if _, err := ctl(t, base, "keys", "create", "--org", id, "--env", "live", "--scopes", "kyc:read"); err == nil || !strings.Contains(err.Error(), "PLAN_UPGRADE_REQUIRED") {
		t.Fatalf("live key on developer: %v", err)
	}
	key, err := ctl(t, base, "keys", "create", "--org", id, "--env", "test", "--scopes", "kyc:read,kyc:write")
	if err != nil || !strings.HasPrefix(key["key"].(string), "mk_test_") || len(key["scopes"].([]any)) != 2 || !strings.HasPrefix(key["id"].(string), "key_") {
		t.Fatalf("keys create: %v %v", key, err)
	}
	if p, err := ctl(t, base, "orgs", "plan", id, "growth"); err != nil || p["plan"] != "growth" {
		t.Fatalf("orgs plan: %v %v", p, err)
	}
	if _, err := ctl(t, base, "keys", "create", "--org", id, "--env", "live", "--scopes", "kyc:read"); err != nil {
		t.Fatalf("live key on growth: %v", err)
	}
	list, err := ctl(t, base, "keys", "list", "--org", id)
	if err != nil || len(list["keys"].([]any)) != 2 || strings.Contains(mustJSON(list), key["key"].(string)) {
		t.Fatalf("keys list must not show secrets: %v %v", list, err)
	}
	if k, err := ctl(t, base, "keys", "revoke", key["id"].(string)); err != nil || k["status"] != "revoked" {
		t.Fatalf("revoke: %v %v", k, err)
	}
	u, err := ctl(t, base, "usage", id, "--month", time.Now().UTC().Format("2006-01"))
	if err != nil || u["plan"] != "growth" || u["invoice"] == nil {
		t.Fatalf("usage: %v %v", u, err)
	}
	if _, err := ctl(t, base, "orgs", "plan", id, "gold"); err == nil || !strings.Contains(err.Error(), "VALIDATION_ERROR") {
		t.Fatalf("bad plan: %v", err)
	}
	var out bytes.Buffer
	if err := run([]string{"--url", base, "--token", "wrong", "orgs", "get", id}, &out); err == nil || !strings.Contains(err.Error(), "UNAUTHORIZED") {
		t.Fatalf("wrong token: %v", err)
	}
	if _, err := ctl(t, base, "users", "reset-totp", "nobody@lender.ng"); err == nil || !strings.Contains(err.Error(), "NOT_FOUND") {
		t.Fatalf("reset-totp of an unknown user: %v", err)
	}
	if err := run([]string{"bogus"}, &out); err == nil || !strings.Contains(err.Error(), "usage:") {
		t.Fatalf("usage text: %v", err)
	}
	// The internal resolve API refuses callers without a gateway principal.
	resp, err := http.Post(base+"/internal/v1/keys/resolve", "application/json", strings.NewReader(`{"hash":"00"}`))
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("unsigned resolve: %v %v", resp, err)
	}
}

// adminCall is one request the fake verification admin API received.
type adminCall struct {
	Method, Path, Auth, ContentType string
	Body                            map[string]any // nil when the request had none
}

// fakeVerificationAdmin stands in for the verification service's admin API
// (a real one would pull the whole platform into this module): it records
// every request, refuses a wrong token as the real one does, and answers
// with the envelope around the data or error set by reply.
func fakeVerificationAdmin(t *testing.T) (base string, calls func() []adminCall, reply func(status int, envelope string)) {
	t.Helper()
	var mu sync.Mutex
	var got []adminCall
	status, body := http.StatusOK, `{"status":true,"data":{}}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		c := adminCall{Method: r.Method, Path: r.URL.RequestURI(), Auth: r.Header.Get("Authorization"), ContentType: r.Header.Get("Content-Type")}
		if len(b) > 0 {
			if err := json.Unmarshal(b, &c.Body); err != nil {
				c.Body = map[string]any{"unparsable": string(b)}
			}
		}
		mu.Lock()
		got = append(got, c)
		st, out := status, body
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		if c.Auth != "Bearer test-admin-token" {
			st, out = http.StatusUnauthorized, `{"status":false,"error":{"code":"UNAUTHORIZED","message":"Missing or invalid admin token"}}`
		}
		w.WriteHeader(st)
		_, _ = io.WriteString(w, out)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func() []adminCall {
			mu.Lock()
			defer mu.Unlock()
			out := got
			got = nil
			return out
		}, func(st int, env string) {
			mu.Lock()
			status, body = st, env
			mu.Unlock()
		}
}

func TestKycctlAgentsAndTasks(t *testing.T) {
	ver, calls, reply := fakeVerificationAdmin(t)
	// Agent commands must never go to auth-billing's admin API.
	billing, billingCalls, _ := fakeVerificationAdmin(t)
	agent := `{"id":"agt_01","name":"Adewale Johnson","phone":"+2348031234567","states":["Lagos","Ogun"],` +
		`"lgas":["Ikeja","Surulere"],"active":true,"openTasks":0,"createdAt":"2026-11-23T10:00:00.123Z"}`
	task := `{"id":"adr_01","status":"ASSIGNED","customerId":"cus_01","attempts":[],"photoCount":0}`
	for _, tc := range []struct {
		name   string
		args   []string
		method string
		path   string
		body   map[string]any // nil: no body
		status int
		data   string
	}{
		{"create", []string{"agents", "create", "--name", "Adewale Johnson", "--phone", "+2348031234567", "--states", "Lagos, Ogun", "--lgas", "Ikeja,Surulere"},
			"POST", "/admin/v1/agents", map[string]any{"name": "Adewale Johnson", "phone": "+2348031234567",
				"states": []any{"Lagos", "Ogun"}, "lgas": []any{"Ikeja", "Surulere"}}, http.StatusCreated, agent},
		{"create without LGAs", []string{"agents", "create", "--states", "Kwara", "--name", "Bola Ahmed", "--phone", "+2348051234567"},
			"POST", "/admin/v1/agents", map[string]any{"name": "Bola Ahmed", "phone": "+2348051234567",
				"states": []any{"Kwara"}, "lgas": []any{}}, http.StatusCreated, agent},
		{"list", []string{"agents", "list"}, "GET", "/admin/v1/agents", nil, http.StatusOK, `{"agents":[` + agent + `]}`},
		{"disable", []string{"agents", "disable", "agt_01"}, "POST", "/admin/v1/agents/agt_01/disable", nil, http.StatusOK, agent},
		{"enable", []string{"agents", "enable", "agt_01"}, "POST", "/admin/v1/agents/agt_01/enable", nil, http.StatusOK, agent},
		{"code", []string{"agents", "code", "agt_01"}, "POST", "/admin/v1/agents/agt_01/code", nil, http.StatusCreated,
			`{"code":"042917","expiresAt":"2026-11-23T10:15:00.123Z"}`},
		{"reassign", []string{"tasks", "reassign", "adr_01", "--agent", "agt_02"}, "POST", "/admin/v1/tasks/adr_01/reassign",
			map[string]any{"agentId": "agt_02"}, http.StatusOK, task},
		{"evidence", []string{"tasks", "evidence", "adr_01"}, "GET", "/admin/v1/tasks/adr_01/evidence", nil, http.StatusOK,
			`{"addressId":"adr_01","visits":[],"photoMatches":[]}`},
		{"reassign, flag first", []string{"tasks", "--agent", "agt_02", "reassign", "adr_01"}, "POST", "/admin/v1/tasks/adr_01/reassign",
			map[string]any{"agentId": "agt_02"}, http.StatusOK, task},
		{"reviews", []string{"reviews", "list"}, "GET", "/admin/v1/reviews", nil, http.StatusOK, `{"reviews":[],"nextCursor":null}`},
		{"reviews page", []string{"reviews", "list", "--limit", "5", "--cursor", "abc"}, "GET", "/admin/v1/reviews?cursor=abc&limit=5", nil,
			http.StatusOK, `{"reviews":[],"nextCursor":null}`},
		{"approve", []string{"reviews", "decide", "adr_01", "--approve"}, "POST", "/admin/v1/reviews/adr_01/decision",
			map[string]any{"decision": "APPROVE"}, http.StatusOK, `{"addressId":"adr_01","decision":"APPROVE","status":"VERIFIED"}`},
		{"reject", []string{"reviews", "decide", "adr_01", "--reject", "WRONG_ADDRESS", "--note", "Another house."}, "POST",
			"/admin/v1/reviews/adr_01/decision", map[string]any{"decision": "REJECT", "reason": "WRONG_ADDRESS", "note": "Another house."},
			http.StatusOK, `{"addressId":"adr_01","decision":"REJECT","status":"REJECTED"}`},
		{"revisit", []string{"reviews", "decide", "adr_01", "--revisit", "--note", "Photo the gate.", "--agent", "agt_02"}, "POST",
			"/admin/v1/reviews/adr_01/decision", map[string]any{"decision": "REVISIT", "note": "Photo the gate.", "agentId": "agt_02"},
			http.StatusOK, `{"addressId":"adr_01","decision":"REVISIT","status":"ASSIGNED"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reply(tc.status, `{"status":true,"message":"ok","data":`+tc.data+`}`)
			var out bytes.Buffer
			args := append([]string{"--url", billing, "--verification-url", ver + "/", "--token", "test-admin-token"}, tc.args...)
			if err := run(args, &out); err != nil {
				t.Fatalf("run: %v", err)
			}
			got := calls()
			if len(got) != 1 {
				t.Fatalf("%d requests, want 1: %+v", len(got), got)
			}
			c := got[0]
			if c.Method != tc.method || c.Path != tc.path || c.Auth != "Bearer test-admin-token" {
				t.Errorf("request %s %s (%q), want %s %s with the admin token", c.Method, c.Path, c.Auth, tc.method, tc.path)
			}
			if mustJSON(c.Body) != mustJSON(tc.body) {
				t.Errorf("body %s, want %s", mustJSON(c.Body), mustJSON(tc.body))
			}
			if (tc.body != nil) != (c.ContentType == "application/json") {
				t.Errorf("Content-Type %q with body %v", c.ContentType, c.Body)
			}
			var printed, want any
			if err := json.Unmarshal(out.Bytes(), &printed); err != nil {
				t.Fatalf("output is not JSON: %s", out.String())
			}
			_ = json.Unmarshal([]byte(tc.data), &want)
			if mustJSON(printed) != mustJSON(want) {
				t.Errorf("printed %s, want the data %s", out.String(), tc.data)
			}
		})
	}
	if got := billingCalls(); len(got) != 0 {
		t.Fatalf("agent commands reached auth-billing's admin API: %+v", got)
	}

	var out bytes.Buffer
	for _, args := range [][]string{{"reviews", "decide", "adr_01"}, {"reviews", "decide", "adr_01", "--approve", "--revisit", "--note", "x"}} {
		if err := run(append([]string{"--verification-url", ver}, args...), &out); err == nil || !strings.Contains(err.Error(), "exactly one") {
			t.Errorf("%v: %v", args, err)
		}
	}
	// Errors are the API's code, message and field details.
	reply(http.StatusConflict, `{"status":false,"error":{"code":"AGENT_DISABLED","message":"The agent is disabled; enable it first"}}`)
	if err := run([]string{"--verification-url", ver, "--token", "test-admin-token", "agents", "code", "agt_01"}, &out); err == nil ||
		err.Error() != "AGENT_DISABLED: The agent is disabled; enable it first" {
		t.Fatalf("disabled agent: %v", err)
	}
	reply(http.StatusBadRequest, `{"status":false,"error":{"code":"VALIDATION_ERROR","message":"phone: must be a Nigerian number",`+
		`"details":[{"field":"phone","message":"must be a Nigerian number"}]}}`)
	if err := run([]string{"--verification-url", ver, "--token", "test-admin-token", "agents", "create", "--name", "Ade", "--phone", "0803", "--states", "Lagos"}, &out); err == nil ||
		!strings.Contains(err.Error(), "VALIDATION_ERROR") || !strings.Contains(err.Error(), "\n  phone: must be a Nigerian number") {
		t.Fatalf("validation error: %v", err)
	}
	calls()
	if err := run([]string{"--verification-url", ver, "--token", "wrong", "agents", "list"}, &out); err == nil || !strings.Contains(err.Error(), "UNAUTHORIZED") {
		t.Fatalf("wrong token: %v", err)
	}
	if got := calls(); len(got) != 1 || got[0].Auth != "Bearer wrong" {
		t.Fatalf("the token sent: %+v", got)
	}

	// KYC_VERIFICATION_ADMIN_URL and ADMIN_TOKEN stand in for the flags.
	t.Setenv("KYC_VERIFICATION_ADMIN_URL", ver)
	t.Setenv("ADMIN_TOKEN", "test-admin-token")
	reply(http.StatusOK, `{"status":true,"data":{"agents":[]}}`)
	if err := run([]string{"agents", "list"}, &out); err != nil {
		t.Fatalf("from the environment: %v", err)
	}
	if got := calls(); len(got) != 1 || got[0].Path != "/admin/v1/agents" || got[0].Auth != "Bearer test-admin-token" {
		t.Fatalf("from the environment: %+v", got)
	}

	// Incomplete commands print the usage and send nothing.
	for _, args := range [][]string{
		{"agents", "create", "--name", "Ade Bello", "--phone", "+2348031234567"}, // no --states
		{"agents", "create", "--states", "Lagos", "--phone", "+2348031234567"},   // no --name
		{"agents", "create", "--name", "Ade Bello", "--states", "Lagos"},         // no --phone
		{"agents", "disable"},
		{"agents", "code", "agt_01", "agt_02"},
		{"agents", "list", "extra"},
		{"agents", "delete", "agt_01"},
		{"tasks", "reassign", "adr_01"}, // no --agent
		{"tasks", "reassign", "--agent", "agt_01"},
	} {
		if err := run(args, &out); err == nil || !strings.Contains(err.Error(), "kycctl agents create --name NAME") {
			t.Errorf("%v: %v", args, err)
		}
	}
	if got := calls(); len(got) != 0 {
		t.Fatalf("incomplete commands sent %+v", got)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
