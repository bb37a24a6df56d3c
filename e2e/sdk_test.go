package e2e

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	kyc "github.com/kycfield/kyc/sdk/go"
	"github.com/kycfield/kyc/sdk/go/kycapi"

	"github.com/kycfield/kyc/pkg/eventually"
)

// The Go SDK against the platform, as a lender uses it: a webhook endpoint,
// a sandbox customer created and polled until VERIFIED, found again with
// the customers paginator, its events paged one at a time and matched to
// the deliveries a loopback receiver verified with the SDK; typed errors;
// and a create whose answer is lost on the way back, retried by the SDK
// with the same Idempotency-Key, that makes one customer, not two.
func TestGoSDKAgainstThePlatform(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, key := P.NewKey(t, P.NewOrg(t, "growth"), "test")
	c, err := kyc.New(kyc.Config{APIKey: key, BaseURL: P.GatewayURL, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}

	rc := newHookReceiver(t, nil)
	hook, err := kyc.Check(c.API.CreateWebhookWithResponse(ctx, nil, kycapi.WebhookEndpointCreate{Url: rc.URL + "/kyc"}))
	if err != nil {
		t.Fatal(err)
	}
	verifier, err := kyc.NewWebhookVerifier(*hook.JSON201.Data.Secret)
	if err != nil {
		t.Fatal(err)
	}

	customer, err := c.CreateCustomer(ctx, kycapi.CustomerCreate{
		FirstName: "Amaka", LastName: "Eze", Phone: phone(),
		Addresses: &[]kycapi.AddressInput{{StreetName: "Adeola Odeku Street", City: "Victoria Island", State: "Lagos"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	eventually.True(t, patience, "the sandbox customer is VERIFIED", func() bool {
		st, err := c.VerificationStatus(ctx, customer.Id)
		if err != nil {
			t.Fatal(err)
		}
		return st.OverallStatus == kycapi.CustomerStatusVERIFIED
	})

	limit := 1
	var listed []string
	for cu, err := range c.Customers(ctx, kycapi.ListCustomersParams{Limit: &limit}) {
		if err != nil {
			t.Fatal(err)
		}
		listed = append(listed, cu.Id)
	}
	if !slices.Contains(listed, customer.Id) {
		t.Fatalf("the paginator listed %v, not %s", listed, customer.Id)
	}

	// Every delivery verifies with the SDK, and the completion's
	// webhook-id is an event the events paginator lists for the customer.
	var completed string
	eventually.True(t, patience, "verification.completed delivered", func() bool {
		for _, r := range rc.requests() {
			ev, err := verifier.Verify(r.body, r.header)
			if err != nil {
				t.Fatalf("delivery %s: %v", r.header.Get("webhook-id"), err)
			}
			if ev.Type == kycapi.WebhookEventType("verification.completed") {
				completed = r.header.Get("webhook-id")
			}
		}
		return completed != ""
	})
	var events []string
	for ev, err := range c.Events(ctx, kycapi.ListEventsParams{CustomerId: &customer.Id, Limit: &limit}) {
		if err != nil {
			t.Fatal(err)
		}
		v, err := ev.AsVerificationOutcomeWebhook()
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, v.Id.String())
	}
	if len(events) < 2 || !slices.Contains(events, completed) {
		t.Fatalf("events of %s: %v; the completion delivered was %s", customer.Id, events, completed)
	}
	one, err := c.Event(ctx, completed)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := one.AsVerificationOutcomeWebhook(); v.Id.String() != completed {
		t.Fatalf("GET /events/%s answered %s", completed, v.Id)
	}

	// Typed errors from the envelope.
	_, err = c.Customer(ctx, "cus_019a8c5e3f2b7d41a6c9e0f1d2b3a4c5")
	var e *kyc.Error
	if !errors.As(err, &e) || e.HTTPStatus != http.StatusNotFound || e.Code != "NOT_FOUND" || !strings.HasPrefix(e.RequestID, "req_") {
		t.Fatalf("unknown customer: %#v", err)
	}
	_, err = c.CreateCustomer(ctx, kycapi.CustomerCreate{FirstName: "A", LastName: "Eze", Phone: "12"})
	if !errors.As(err, &e) || e.Code != "VALIDATION_ERROR" || len(e.Details) < 2 {
		t.Fatalf("invalid customer: %#v", err)
	}

	// The first answer to a create is lost after the platform made the
	// customer; the retry carries the same key and gets the replay.
	lossy := &loseFirstAnswer{}
	flaky, err := kyc.New(kyc.Config{APIKey: key, BaseURL: P.GatewayURL, HTTPClient: &http.Client{Transport: lossy}})
	if err != nil {
		t.Fatal(err)
	}
	retried := phone()
	made, err := flaky.CreateCustomer(ctx, kycapi.CustomerCreate{
		FirstName: "Tunde", LastName: "Bello", Phone: retried,
		Addresses: &[]kycapi.AddressInput{{StreetName: "Allen Avenue", City: "Ikeja", State: "Lagos"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if keys := lossy.keys(); len(keys) != 2 || keys[0] == "" || keys[0] != keys[1] {
		t.Fatalf("Idempotency-Key of the two attempts: %q", keys)
	}
	search := retried
	var found []string
	for cu, err := range c.Customers(ctx, kycapi.ListCustomersParams{Search: &search}) {
		if err != nil {
			t.Fatal(err)
		}
		found = append(found, cu.Id)
	}
	if len(found) != 1 || found[0] != made.Id {
		t.Fatalf("one create retried made %v (answered %s)", found, made.Id)
	}
}

// loseFirstAnswer is a transport whose first POST reaches the platform,
// whose answer is then thrown away as if the connection had dropped.
type loseFirstAnswer struct {
	mu   sync.Mutex
	seen []string
	lost atomic.Bool
}

func (l *loseFirstAnswer) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodPost {
		l.mu.Lock()
		l.seen = append(l.seen, r.Header.Get("Idempotency-Key"))
		l.mu.Unlock()
	}
	res, err := http.DefaultTransport.RoundTrip(r)
	if err == nil && r.Method == http.MethodPost && l.lost.CompareAndSwap(false, true) {
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return nil, errors.New("connection reset by peer (simulated)")
	}
	return res, err
}

func (l *loseFirstAnswer) keys() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.seen)
}

// The TypeScript SDK's tests (sdk/typescript/test, node's own runner)
// against this platform: its dependencies installed from the committed
// lock file, compiled with the pinned tsc, then run with the gateway and
// a sandbox key in the environment, which turns the platform tests on
// (they skip without). Node's report must show no failure and no skip.
func TestTypeScriptSDKAgainstThePlatform(t *testing.T) {
	t.Parallel()
	dir, err := filepath.Abs(filepath.Join(repoRoot, "sdk", "typescript"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("node not found: the TypeScript SDK's tests need Node.js 20+ (deploy/local/tools.sh installs it)")
	}
	_, key := P.NewKey(t, P.NewOrg(t, "growth"), "test")
	run := func(env []string, name string, args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), env...)
		cmd.WaitDelay = 5 * time.Second
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out.String())
		}
		return out.String()
	}
	run(nil, "./npm-ci.sh")
	run(nil, "node_modules/.bin/tsc", "-p", ".")
	out := run([]string{"KYC_URL=" + P.GatewayURL, "KYC_SANDBOX_KEY=" + key, "KYC_TIMEOUT=60"},
		"node", "--test", "--test-reporter=tap", "dist/test/")
	for _, want := range []string{"\n# fail 0\n", "\n# skipped 0\n", "\n# cancelled 0\n"} {
		if !strings.Contains(out, want) {
			t.Fatalf("node --test: no %q in its report:\n%s", strings.TrimSpace(want), out)
		}
	}
	if !strings.Contains(out, "ok ") || strings.Contains(out, "\n# pass 0\n") {
		t.Fatalf("node --test ran nothing:\n%s", out)
	}
	t.Logf("node --test:\n%s", tail(out, 12))
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
