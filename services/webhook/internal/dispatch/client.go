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
	"time"

	"github.com/kycfield/kyc/pkg/publicurl"
	"github.com/kycfield/kyc/services/webhook/internal/signing"
	"github.com/kycfield/kyc/services/webhook/internal/webhook"
)

// maxLogged is how much of a response body the delivery log keeps.
const maxLogged = 1 << 10

// NewClient returns the HTTP client deliveries use. Unless allowPrivate,
// its dialer refuses any address that is not public, after resolution
// (so DNS rebinding cannot reach the internal network); no proxy from the
// environment is used, for the same reason; redirects are returned as
// they are (a 3xx is a failed attempt, never followed).
func NewClient(allowPrivate bool, timeout time.Duration) *http.Client {
	d := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	if !allowPrivate {
		d.Control = publicurl.DialControl
	}
	tr := &http.Transport{
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
	return &http.Client{Transport: tr, Timeout: timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// Send makes one signed attempt of m to e and reports it.
func Send(ctx context.Context, c *http.Client, e webhook.Endpoint, m webhook.Message, now time.Time) webhook.Attempt {
	a := webhook.Attempt{At: now.UTC()}
	sig, err := signing.Signature(m.ID, now.Unix(), m.Body, e.Secrets(now)...)
	if err != nil {
		a.Error = "the endpoint's secret is unusable"
		return a
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.URL, bytes.NewReader(m.Body))
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
