// Package dispatch delivers due webhook deliveries from the Postgres
// schedule: one bounded worker pool per process, at most a few requests
// in flight per endpoint (counted across replicas), signed requests sent
// by a client that refuses non-public addresses at connect time and never
// follows redirects.
package dispatch

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/kycfield/kyc/pkg/publicurl"
	"github.com/kycfield/kyc/services/webhook/internal/signing"
	"github.com/kycfield/kyc/services/webhook/internal/webhook"
)

// maxLogged is how much of a response body the delivery log keeps.
const maxLogged = 1 << 10

// NewClient returns the HTTP client deliveries use. Its dialer refuses
// any address that is not public, after resolution (so DNS rebinding
// cannot reach the internal network), unless p allows private targets in
// the endpoint's environment: the rule that accepted the URL is the one
// that connects to it, so a live endpoint never reaches a private address
// whatever WEBHOOK_ALLOW_PRIVATE says. No proxy from the environment is
// used, for the same reason; redirects are returned as they are (a 3xx is
// a failed attempt, never followed). Host names are resolved with
// p.Resolver (the system's when nil).
func NewClient(p webhook.URLPolicy, timeout time.Duration) *http.Client {
	tr := byEnv{policy: p, public: newTransport(p.Resolver, publicurl.DialControl)}
	if p.AllowsPrivate(webhook.EnvTest) {
		tr.private = newTransport(p.Resolver, nil)
	}
	return &http.Client{Transport: tr, Timeout: timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func newTransport(r *net.Resolver, control func(string, string, syscall.RawConn) error) *http.Transport {
	d := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second, Resolver: r, Control: control}
	return &http.Transport{
		DialContext:         d.DialContext,
		ForceAttemptHTTP2:   true,
		TLSHandshakeTimeout: 5 * time.Second,
		// Many endpoints may share a host (a lender's gateway, a webhook
		// relay): keep a connection for every request that may be in
		// flight to it rather than reconnecting.
		MaxIdleConns:        512,
		MaxIdleConnsPerHost: 64,
		IdleConnTimeout:     90 * time.Second,
	}
}

// envKey carries the endpoint's environment from Send to byEnv.
type envKey struct{}

// byEnv sends a request through the transport its endpoint's environment
// may use. Each has its own connection pool, so a connection dialled to a
// private address for a sandbox endpoint is never reused for a live one
// on the same host and port. A request without an environment goes the
// guarded way.
type byEnv struct {
	policy          webhook.URLPolicy
	public, private *http.Transport
}

func (t byEnv) RoundTrip(r *http.Request) (*http.Response, error) {
	if env, _ := r.Context().Value(envKey{}).(string); t.private != nil && t.policy.AllowsPrivate(env) {
		return t.private.RoundTrip(r)
	}
	return t.public.RoundTrip(r)
}

// CloseIdleConnections closes both pools' idle connections (what
// http.Client.CloseIdleConnections asks of its transport).
func (t byEnv) CloseIdleConnections() {
	t.public.CloseIdleConnections()
	if t.private != nil {
		t.private.CloseIdleConnections()
	}
}

// Send makes one signed attempt of m to e and reports it.
func Send(ctx context.Context, c *http.Client, e webhook.Endpoint, m webhook.Message, now time.Time) webhook.Attempt {
	a := webhook.Attempt{At: now.UTC()}
	sig, err := signing.Signature(m.ID, now.Unix(), m.Body, e.Secrets(now)...)
	if err != nil {
		a.Error = "the endpoint's secret is unusable"
		return a
	}
	req, err := http.NewRequestWithContext(context.WithValue(ctx, envKey{}, e.Env), http.MethodPost, e.URL, bytes.NewReader(m.Body))
	if err != nil {
		a.Error = "the endpoint URL is unusable"
		return a
	}
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", "kyc-webhooks/1")
	h.Set("webhook-id", m.ID)
	h.Set("webhook-timestamp", strconv.FormatInt(now.Unix(), 10))
	h.Set("webhook-signature", sig)
	start := time.Now()
	resp, err := c.Do(req)
	if err != nil {
		a.LatencyMS = time.Since(start).Milliseconds()
		a.Error = describe(err)
		return a
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxLogged))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // lets the connection be reused
	_ = resp.Body.Close()
	a.LatencyMS = time.Since(start).Milliseconds()
	a.StatusCode, a.Succeeded, a.Response = resp.StatusCode, webhook.Succeeded(resp.StatusCode), validUTF8(body)
	return a
}

// describe says why no response arrived, without internals.
func describe(err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, publicurl.ErrNotPublic):
		return "refused: the host resolves to a non-public address"
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return "timed out"
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return "the host name does not resolve"
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Op == "dial" {
		return "connection failed"
	}
	return "the request failed before a response arrived"
}

// validUTF8 makes b valid UTF-8 for the JSON log (a cut at 1 KiB may
// split a rune; a body may be binary).
func validUTF8(b []byte) string { return strings.ToValidUTF8(string(b), "\uFFFD") }
