package harness

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/kycfield/kyc/pkg/envelope"
)

// Response is a decoded HTTP response.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
	Env    envelope.Response
}

// Code returns the error code of a failure envelope, or "".
func (r Response) Code() string {
	if r.Env.Error == nil {
		return ""
	}
	return r.Env.Error.Code
}

// Decode unmarshals the envelope's data into v.
func (r Response) Decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Env.Data, v); err != nil {
		t.Fatalf("decode data: %v\nbody: %s", err, r.Body)
	}
}

// Request describes one call.
type Request struct {
	Method, URL string
	Key         string // API key for the Authorization header
	Body        any    // []byte and string are sent as is, anything else as JSON
	Header      map[string]string
	Client      *http.Client // default p.HTTP; e.g. one with a cookie jar
}

// Do performs a request and decodes the envelope when there is one.
func (p *Platform) Do(t testing.TB, req Request) Response {
	t.Helper()
	var rd io.Reader
	switch b := req.Body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	case string:
		rd = strings.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			t.Fatalf("marshal body: %v", err)
		}
		rd = bytes.NewReader(raw)
	}
	hr, err := http.NewRequest(req.Method, req.URL, rd)
	if err != nil {
		t.Fatalf("new request: %v", err)
	}
	if rd != nil {
		hr.Header.Set("Content-Type", "application/json")
	}
	if req.Key != "" {
		hr.Header.Set("Authorization", "Bearer "+req.Key)
	}
	for k, v := range req.Header {
		hr.Header.Set(k, v)
	}
	client := p.HTTP
	if req.Client != nil {
		client = req.Client
	}
	resp, err := client.Do(hr)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	out := Response{Status: resp.StatusCode, Header: resp.Header, Body: body}
	_ = json.Unmarshal(body, &out.Env)
	return out
}

// API calls the gateway with an API key.
func (p *Platform) API(t testing.TB, method, path, key string, body any) Response {
	t.Helper()
	return p.Do(t, Request{Method: method, URL: p.GatewayURL + path, Key: key, Body: body})
}

// Admin calls auth-billing's admin API.
func (p *Platform) Admin(t testing.TB, method, path string, body any) Response {
	t.Helper()
	return p.Do(t, Request{Method: method, URL: p.AuthBillingURL + path, Key: AdminToken, Body: body})
}

// NewOrg creates an organization on plan and returns its id.
func (p *Platform) NewOrg(t testing.TB, plan string) string {
	t.Helper()
	r := p.Admin(t, "POST", "/admin/v1/orgs", map[string]any{"name": "Org " + t.Name(), "plan": plan})
	if r.Status != http.StatusCreated {
		t.Fatalf("create org: %d %s", r.Status, r.Body)
	}
	var o struct{ ID string }
	r.Decode(t, &o)
	return o.ID
}

// NewKey issues a key and returns its id and secret.
func (p *Platform) NewKey(t testing.TB, orgID, env string, scopes ...string) (string, string) {
	t.Helper()
	if len(scopes) == 0 {
		scopes = []string{"kyc:read", "kyc:write"}
	}
	r := p.Admin(t, "POST", "/admin/v1/orgs/"+orgID+"/keys", map[string]any{"environment": env, "scopes": scopes})
	if r.Status != http.StatusCreated {
		t.Fatalf("create key: %d %s", r.Status, r.Body)
	}
	var k struct{ ID, Key string }
	r.Decode(t, &k)
	return k.ID, k.Key
}
