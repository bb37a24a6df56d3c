package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
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
	if err := run([]string{"bogus"}, &out); err == nil || !strings.Contains(err.Error(), "usage:") {
		t.Fatalf("usage text: %v", err)
	}
	// The internal resolve API refuses callers without a gateway principal.
	resp, err := http.Post(base+"/internal/v1/keys/resolve", "application/json", strings.NewReader(`{"hash":"00"}`))
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("unsigned resolve: %v %v", resp, err)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
