package e2e

import (
	"bufio"
	"net"
	"net/http"
	"net/url"
	"testing"

	"github.com/kycfield/kyc/e2e/harness"
)

// Invalid UTF-8 or NUL in a query parameter, a path segment or a header
// value is a 400 VALIDATION_ERROR through the gateway, never a 500 from
// a database that cannot store it (GET /customers?search=%00 was one).
func TestNulAndInvalidUTF8AreValidationErrors(t *testing.T) {
	t.Parallel()
	_, key := P.NewKey(t, P.NewOrg(t, "growth"), "test")
	c := create(t, key, newCustomer(nil))
	cases := []struct {
		name, method, path string
		header             map[string]string
		field              string
	}{
		{"NUL in search", "GET", "/api/v1/customers?search=%00", nil, "search"},
		{"NUL inside search", "GET", "/api/v1/customers?search=ngozi%00okafor", nil, "search"},
		{"invalid UTF-8 in search", "GET", "/api/v1/customers?search=%C3%28", nil, "search"},
		{"invalid UTF-8 in status", "GET", "/api/v1/customers?status=%FF", nil, "status"},
		{"NUL in a path segment", "GET", "/api/v1/customers/" + c.ID + "%00", nil, "path"},
		{"invalid UTF-8 in a path segment", "GET", "/api/v1/verification/%E9t%E9/status", nil, "path"},
		{"NUL in a path segment of a write", "PUT", "/api/v1/customers/%00", nil, "path"},
		{"invalid UTF-8 in a header", "GET", "/api/v1/customers", map[string]string{"X-Client-Note": "caf\xe9"}, "header X-Client-Note"},
		{"invalid UTF-8 in Idempotency-Key", "POST", "/api/v1/customers", map[string]string{"Idempotency-Key": "k-\xff"}, "header Idempotency-Key"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := P.Do(t, harness.Request{Method: tc.method, URL: P.GatewayURL + tc.path, Key: key, Header: tc.header})
			if r.Status != http.StatusBadRequest || r.Code() != "VALIDATION_ERROR" || r.Env.Status ||
				len(r.Env.Error.Details) != 1 || r.Env.Error.Details[0].Field != tc.field || r.Env.Meta.RequestID == "" {
				t.Fatalf("%s %s: %d %s, want 400 VALIDATION_ERROR on %s", tc.method, tc.path, r.Status, r.Body, tc.field)
			}
		})
	}
	// The customer is untouched and found with clean text.
	r := P.API(t, "GET", "/api/v1/customers?search="+url.QueryEscape("Ngozi"), key, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("clean search: %d %s", r.Status, r.Body)
	}
}

// A NUL byte sent raw in a header value is refused by Go's HTTP server
// before any handler (RFC 9110 forbids control characters there), so it
// is a plain 400, not an envelope: what matters is that it is a 400.
// (Go's own client will not even send it; this writes the request.)
func TestRawNulInAHeaderIsA400(t *testing.T) {
	t.Parallel()
	_, key := P.NewKey(t, P.NewOrg(t, "growth"), "test")
	u, err := url.Parse(P.GatewayURL)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	req := "GET /api/v1/customers HTTP/1.1\r\nHost: " + u.Host + "\r\nAuthorization: Bearer " + key +
		"\r\nX-Client-Note: a\x00b\r\nConnection: close\r\n\r\n"
	if _, err := conn.Write([]byte(req)); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("raw NUL in a header: %s", resp.Status)
	}
}
