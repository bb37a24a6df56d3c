// Command kycctl is the operators' tool: it creates organizations and API
// keys, changes plans and reads usage through auth-billing's admin API, and
// manages field agents and their tasks through the verification service's.
//
//	kycctl orgs create --name NAME [--plan developer|growth|enterprise]
//	kycctl orgs get ORG_ID
//	kycctl orgs plan ORG_ID PLAN
//	kycctl orgs review-policy ORG_ID NONE|FLAGGED|ALL [--sla-hours N]
//	kycctl staff create --email EMAIL --name NAME --role admin|dispatcher|reviewer
//	kycctl keys create --org ORG_ID --env test|live --scopes kyc:read,kyc:write [--name NAME]
//	kycctl keys list --org ORG_ID
//	kycctl keys revoke KEY_ID
//	kycctl usage ORG_ID [--month YYYY-MM]
//	kycctl users reset-totp EMAIL
//	kycctl agents create --name NAME --phone +234... --states Lagos,Ogun [--lgas Ikeja,Surulere]
//	kycctl agents list
//	kycctl agents disable AGENT_ID
//	kycctl agents enable AGENT_ID
//	kycctl agents code AGENT_ID
//	kycctl tasks reassign ADDRESS_ID --agent AGENT_ID
//	kycctl tasks evidence ADDRESS_ID
//
// Auth-billing's admin API is at KYC_ADMIN_URL (or --url), the verification
// service's at KYC_VERIFICATION_ADMIN_URL (or --verification-url; its own
// address, never the gateway); both take the operators' token from
// ADMIN_TOKEN (or --token). Output is the response's data as JSON.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "kycctl:", err)
		os.Exit(1)
	}
}

const usage = `usage:
  kycctl orgs create --name NAME [--plan developer|growth|enterprise]
  kycctl orgs get ORG_ID
  kycctl orgs plan ORG_ID PLAN
  kycctl orgs review-policy ORG_ID NONE|FLAGGED|ALL [--sla-hours N]
  kycctl staff create --email EMAIL --name NAME --role admin|dispatcher|reviewer
  kycctl keys create --org ORG_ID --env test|live --scopes kyc:read,kyc:write [--name NAME]
  kycctl keys list --org ORG_ID
  kycctl keys revoke KEY_ID
  kycctl usage ORG_ID [--month YYYY-MM]
  kycctl users reset-totp EMAIL
  kycctl agents create --name NAME --phone +234... --states Lagos,Ogun [--lgas Ikeja,Surulere]
  kycctl agents list
  kycctl agents disable AGENT_ID
  kycctl agents enable AGENT_ID
  kycctl agents code AGENT_ID
  kycctl tasks reassign ADDRESS_ID --agent AGENT_ID
  kycctl tasks evidence ADDRESS_ID
global flags: --url (KYC_ADMIN_URL, auth-billing), --verification-url (KYC_VERIFICATION_ADMIN_URL,
  agents and tasks), --token (ADMIN_TOKEN)`

type client struct {
	base, token string
	http        *http.Client
}

func run(args []string, out io.Writer) error {
	if len(args) == 0 {
		return errors.New(usage)
	}
	fs := flag.NewFlagSet("kycctl", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	baseURL := fs.String("url", envOr("KYC_ADMIN_URL", "http://127.0.0.1:8081"), "admin API base URL")
	verURL := fs.String("verification-url", envOr("KYC_VERIFICATION_ADMIN_URL", "http://127.0.0.1:8084"), "verification admin API base URL")
	token := fs.String("token", envOr("ADMIN_TOKEN", "local-admin-token-change-me"), "admin token")
	name := fs.String("name", "", "name")
	plan := fs.String("plan", "", "plan")
	org := fs.String("org", "", "organization id")
	env := fs.String("env", "", "environment")
	scopes := fs.String("scopes", "", "comma-separated scopes")
	month := fs.String("month", "", "YYYY-MM")
	phone := fs.String("phone", "", "agent phone, +234...")
	states := fs.String("states", "", "comma-separated states")
	lgas := fs.String("lgas", "", "comma-separated LGAs")
	agent := fs.String("agent", "", "agent id")
	email := fs.String("email", "", "staff member's email")
	role := fs.String("role", "", "staff role")
	slaHours := fs.Int("sla-hours", 0, "SLA target in hours (1-720)")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return fmt.Errorf("%v\n%s", err, usage)
	}
	c := client{base: strings.TrimRight(*baseURL, "/"), token: *token, http: &http.Client{Timeout: 30 * time.Second}}
	v := c // the verification service's admin API: same token, its own address
	v.base = strings.TrimRight(*verURL, "/")
	cmd := strings.Join(pos[:min(2, len(pos))], " ")
	var data json.RawMessage
	switch {
	case cmd == "orgs create" && *name != "":
		data, err = c.do("POST", "/admin/v1/orgs", map[string]any{"name": *name, "plan": *plan})
	case cmd == "orgs get" && len(pos) == 3:
		data, err = c.do("GET", "/admin/v1/orgs/"+url.PathEscape(pos[2]), nil)
	case cmd == "orgs plan" && len(pos) == 4:
		data, err = c.do("PUT", "/admin/v1/orgs/"+url.PathEscape(pos[2])+"/plan", map[string]any{"plan": pos[3]})
	case cmd == "orgs review-policy" && len(pos) == 4:
		body := map[string]any{"reviewPolicy": pos[3]}
		if *slaHours != 0 {
			body["slaHours"] = *slaHours
		}
		data, err = c.do("PUT", "/admin/v1/orgs/"+url.PathEscape(pos[2])+"/review-policy", body)
	case cmd == "staff create" && len(pos) == 2 && *email != "" && *name != "" && *role != "":
		// The answer's enrolUrl is the new member's one-time link to the
		// console: the first admin is bootstrapped this way.
		data, err = c.do("POST", "/admin/v1/staff", map[string]any{"email": *email, "name": *name, "role": *role})
	case cmd == "keys create" && *org != "":
		data, err = c.do("POST", "/admin/v1/orgs/"+url.PathEscape(*org)+"/keys",
			map[string]any{"environment": *env, "scopes": splitList(*scopes), "name": *name})
	case cmd == "keys list" && *org != "":
		data, err = c.do("GET", "/admin/v1/orgs/"+url.PathEscape(*org)+"/keys", nil)
	case cmd == "keys revoke" && len(pos) == 3:
		data, err = c.do("POST", "/admin/v1/keys/"+url.PathEscape(pos[2])+"/revoke", nil)
	case len(pos) == 2 && pos[0] == "usage":
		data, err = c.do("GET", "/admin/v1/orgs/"+url.PathEscape(pos[1])+"/usage?month="+url.QueryEscape(*month), nil)
	case cmd == "users reset-totp" && len(pos) == 3:
		data, err = c.do("POST", "/admin/v1/users/totp/reset", map[string]any{"email": pos[2]})
	case cmd == "agents create" && len(pos) == 2 && *name != "" && *phone != "" && *states != "":
		data, err = v.do("POST", "/admin/v1/agents", map[string]any{"name": *name, "phone": *phone,
			"states": splitList(*states), "lgas": append([]string{}, splitList(*lgas)...)})
	case cmd == "agents list" && len(pos) == 2:
		data, err = v.do("GET", "/admin/v1/agents", nil)
	case (cmd == "agents disable" || cmd == "agents enable" || cmd == "agents code") && len(pos) == 3:
		data, err = v.do("POST", "/admin/v1/agents/"+url.PathEscape(pos[2])+"/"+pos[1], nil)
	case cmd == "tasks reassign" && len(pos) == 3 && *agent != "":
		data, err = v.do("POST", "/admin/v1/tasks/"+url.PathEscape(pos[2])+"/reassign", map[string]any{"agentId": *agent})
	case cmd == "tasks evidence" && len(pos) == 3:
		data, err = v.do("GET", "/admin/v1/tasks/"+url.PathEscape(pos[2])+"/evidence", nil)
	default:
		return errors.New(usage)
	}
	if err != nil {
		return err
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, data, "", "  "); err != nil {
		return err
	}
	_, err = fmt.Fprintln(out, pretty.String())
	return err
}

// parseInterspersed lets flags follow positional arguments.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

func (c client) do(method, path string, body any) (json.RawMessage, error) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("cannot reach the admin API at %s: %w", c.base, err)
	}
	defer resp.Body.Close()
	var env struct {
		Status bool            `json:"status"`
		Data   json.RawMessage `json:"data"`
		Error  *struct {
			Code, Message string
			Details       []map[string]any
		} `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
		return nil, fmt.Errorf("unexpected %s response from the admin API", resp.Status)
	}
	if !env.Status || env.Error != nil {
		if env.Error == nil {
			return nil, fmt.Errorf("request failed: %s", resp.Status)
		}
		msg := fmt.Sprintf("%s: %s", env.Error.Code, env.Error.Message)
		for _, d := range env.Error.Details {
			msg += fmt.Sprintf("\n  %v: %v", d["field"], d["message"])
		}
		return nil, errors.New(msg)
	}
	return env.Data, nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}
