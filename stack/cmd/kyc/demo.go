package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// demo is the organization and keys make run hands out.
type demo struct{ OrgID, TestKey, LiveKey string }

// announce makes sure a demo organization with working keys exists
// (reusing the ones saved in file while they authenticate, so pasted
// curls keep working across restarts) and prints how to call the platform.
func announce(ctx context.Context, urls map[string]string, file string, environ map[string]string) error {
	gw, ab := urls["gateway"], urls["auth-billing"]
	if gw == "" || ab == "" {
		return errors.New("-demo-keys needs the gateway and auth-billing among the targets")
	}
	c := &http.Client{Timeout: 30 * time.Second}
	d, err := load(file)
	if err != nil || !works(ctx, c, gw, d.TestKey) || !works(ctx, c, gw, d.LiveKey) {
		token := environ["ADMIN_TOKEN"]
		if token == "" {
			token = "local-admin-token-change-me" // auth-billing's local default
		}
		admin := adminAPI{base: ab, token: token, http: c}
		if d, err = admin.seed(ctx); err != nil {
			return err
		}
		if err := save(file, d); err != nil {
			return err
		}
	}
	fmt.Print(banner(gw, file, d))
	return nil
}

func load(file string) (demo, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return demo{}, err
	}
	// Parsed, never sourced: a mangled file cannot run anything.
	var d demo
	for _, line := range strings.Split(string(b), "\n") {
		k, v, _ := strings.Cut(line, "=")
		switch k {
		case "ORG_ID":
			d.OrgID = v
		case "TEST_KEY":
			d.TestKey = v
		case "LIVE_KEY":
			d.LiveKey = v
		}
	}
	return d, nil
}

func save(file string, d demo) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	body := fmt.Sprintf("ORG_ID=%s\nTEST_KEY=%s\nLIVE_KEY=%s\n", d.OrgID, d.TestKey, d.LiveKey)
	return os.WriteFile(file, []byte(body), 0o600) // the keys are secrets, even local ones
}

func works(ctx context.Context, c *http.Client, gateway, key string) bool {
	if key == "" {
		return false
	}
	req, _ := http.NewRequestWithContext(ctx, "GET", gateway+"/api/v1/customers?limit=1", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := c.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

type adminAPI struct {
	base, token string
	http        *http.Client
}

func (a adminAPI) seed(ctx context.Context) (demo, error) {
	var org struct{ ID string }
	if err := a.post(ctx, "/admin/v1/orgs", map[string]any{"name": "Demo Lender", "plan": "growth"}, &org); err != nil {
		return demo{}, err
	}
	d := demo{OrgID: org.ID}
	for env, dst := range map[string]*string{"test": &d.TestKey, "live": &d.LiveKey} {
		var key struct{ Key string }
		body := map[string]any{"environment": env, "scopes": []string{"kyc:read", "kyc:write"}, "name": "demo " + env}
		if err := a.post(ctx, "/admin/v1/orgs/"+org.ID+"/keys", body, &key); err != nil {
			return demo{}, err
		}
		*dst = key.Key
	}
	return d, nil
}

func (a adminAPI) post(ctx context.Context, path string, body, data any) error {
	b, _ := json.Marshal(body)
	req, _ := http.NewRequestWithContext(ctx, "POST", a.base+path, bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+a.token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := a.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var env struct {
		Data  json.RawMessage `json:"data"`
		Error *struct{ Code, Message string }
	}
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
		return fmt.Errorf("admin API %s: %s", path, resp.Status)
	}
	if env.Error != nil {
		return fmt.Errorf("admin API %s: %s %s", path, env.Error.Code, env.Error.Message)
	}
	return json.Unmarshal(env.Data, data)
}

// banner says how to call the platform. A random phone and email keep the
// sample curl re-runnable: a second customer with the same phone or email
// in an environment is a DUPLICATE_CUSTOMER.
func banner(gw, file string, d demo) string {
	n := rand.IntN(100_000_000)
	phone, email := fmt.Sprintf("+23480%08d", n), fmt.Sprintf("ngozi.%08d@example.com", n)
	return fmt.Sprintf(`
================================================================================
 KYC platform is up

 Gateway:      %[1]s   (metrics: http://127.0.0.1:9080/metrics)
 Organization: %[2]s
 Sandbox key:  %[3]s
 Live key:     %[4]s
 (saved in %[5]s)

 Create a customer:
   curl -s -X POST %[1]s/api/v1/customers -H "Authorization: Bearer %[3]s" -H "Content-Type: application/json" -d '{"firstName":"Ngozi","lastName":"Okafor","phone":"%[6]s","email":"%[7]s","addresses":[{"streetName":"Adeola Odeku Street","city":"Lagos","state":"Lagos"}]}'

 Fetch it (use the id from the answer):
   curl -s %[1]s/api/v1/customers/CUSTOMER_ID -H "Authorization: Bearer %[3]s"

 Operations console: %[1]s/ops/ ; create its first admin and open the enrolUrl printed:
   bin/kycctl staff create --email you@example.com --name "Your Name" --role admin

 Press Ctrl-C to stop
================================================================================

`, gw, d.OrgID, d.TestKey, d.LiveKey, file, phone, email)
}
