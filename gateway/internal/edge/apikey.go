package edge

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/kycfield/kyc/gateway/internal/idempotency"
	"github.com/kycfield/kyc/gateway/internal/keys"
	"github.com/kycfield/kyc/gateway/internal/quota"
	"github.com/kycfield/kyc/gateway/internal/routes"
	"github.com/kycfield/kyc/pkg/apikey"
	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/envelope"
	"github.com/kycfield/kyc/pkg/principal"
)

// The two 401s differ only in the RFC 6750 challenge.
var (
	errMissingKey = apperr.New(apperr.KindUnauthorized, apperr.CodeUnauthorized, "Missing or invalid API key").
			WithHeader("WWW-Authenticate", `Bearer realm="kyc"`)
	errBadKey = apperr.New(apperr.KindUnauthorized, apperr.CodeUnauthorized, "Missing or invalid API key").
			WithHeader("WWW-Authenticate", `Bearer realm="kyc", error="invalid_token"`)
)

// apiKey runs the public-API pipeline for one request: authenticated by
// an API key, or by a dashboard session (session.go).
func (g *Gateway) apiKey(w http.ResponseWriter, r *http.Request, rt routes.Route) {
	var c caller
	var ok bool
	if tok, isSession := sessionToken(r); isSession {
		c, ok = g.sessionCaller(w, r, tok)
	} else {
		c, ok = g.keyCaller(w, r)
	}
	if !ok {
		return
	}
	// Admission before anything with an effect (quota, idempotency
	// claim, the service): a shed request has done nothing. Dashboard
	// members are people at a page, never shed (admit's doc).
	if g.opt.Admit != nil && !c.p.IsMember() {
		release, err := g.opt.Admit.Acquire(r.Context(), c.p.OrgID)
		if err != nil { // counted, not logged: a log line per shed request is more load
			envelope.Fail(r.Context(), w, nil, err)
			return
		}
		defer release()
	}
	if !g.count(w, r, c) {
		return
	}
	st := &state{p: c.p}
	if rt.Scope != "" && !st.p.HasScope(rt.Scope) {
		if st.p.IsMember() {
			g.refuseMember(w, r, rt, st.p)
			return
		}
		g.fail(w, r, apperr.New(apperr.KindForbidden, apperr.CodeInsufficientScope,
			"This API key lacks the "+rt.Scope+" scope required by this endpoint"))
		return
	}
	if st.p.Env == principal.EnvLive && !c.plan.LiveAccess {
		g.fail(w, r, apperr.New(apperr.KindForbidden, apikey.CodePlanUpgradeRequired,
			"Live (production) access requires the Growth or Enterprise plan; upgrade from the dashboard"))
		return
	}
	body, ok := g.limitBody(w, r, rt)
	if !ok {
		return
	}
	if r.Method == http.MethodPost && r.Header.Get(idempotency.Header) != "" {
		begin := g.beginIdempotent
		if body == nil && rt.Body == routes.BodyUpload {
			begin = g.beginIdempotentUpload
		}
		if !begin(w, r, st, body) {
			return
		}
	}
	if routes.ReservesRows[rt.Method+" "+rt.Pattern] && !g.reserveRows(w, r, st, c.plan.DailyRequests, body) {
		return
	}
	g.forward(w, r, rt, st)
}

// count counts the request against its organization's daily quota,
// answering 429 QUOTA_EXCEEDED when it is spent; it returns whether the
// request may go on. A capped plan waits for Redis's exact answer (one
// script per request, shared round trips). An uncapped plan's count
// decides nothing, so the request does not wait for it: the same script
// counts it while the request is proxied, and usage hears the count when
// Redis answers.
func (g *Gateway) count(w http.ResponseWriter, r *http.Request, c caller) bool {
	if c.plan.DailyRequests <= 0 {
		org, key, at := c.p.OrgID, c.p.KeyID, time.Now()
		g.limiter.CountUncapped(org, func(n int64) { g.usage.Seen(org, key, n, at) })
		return true
	}
	d := g.limiter.Take(r.Context(), c.p.OrgID, c.plan.DailyRequests)
	setRateHeaders(w, d)
	if !d.Allowed {
		secs := strconv.Itoa(int(d.Reset.Seconds()) + 1)
		g.fail(w, r, apperr.New(apperr.KindRateLimited, CodeQuotaExceeded,
			fmt.Sprintf("Daily request quota of %d exceeded; it resets at 00:00 UTC", d.Limit)).WithHeader("Retry-After", secs))
		return false
	}
	g.usage.Seen(c.p.OrgID, c.p.KeyID, d.Count, time.Now())
	return true
}

// caller is who a public-API request comes from, and their plan.
type caller struct {
	p    principal.Principal
	plan apikey.Plan
}

// keyCaller authenticates the request's API key.
func (g *Gateway) keyCaller(w http.ResponseWriter, r *http.Request) (caller, bool) {
	secret, ok := bearerToken(r.Header.Get("Authorization"))
	if !ok {
		g.fail(w, r, errMissingKey)
		return caller{}, false
	}
	id, err := g.resolver.Resolve(r.Context(), secret)
	switch {
	case errors.Is(err, keys.ErrUnavailable):
		g.fail(w, r, apperr.Unavailable("Authentication", err))
		return caller{}, false
	case err != nil:
		g.fail(w, r, errBadKey)
		return caller{}, false
	}
	return caller{plan: id.Org.Plan, p: principal.Principal{Kind: principal.KindAPIKey, OrgID: id.Org.ID, Env: id.Key.Env, KeyID: id.Key.ID,
		Scopes: id.Key.Scopes, Plan: id.Org.Plan.ID, RecordLimit: id.Org.Plan.TestRecordLimit, ClientIP: g.clientIP(r)}}, true
}

// bearerToken returns the token of an Authorization header using the
// Bearer scheme. The scheme name is case-insensitive and one or more spaces
// may separate it from the token (RFC 7235 section 2.1, RFC 6750 section
// 2.1): "bearer mk_test_..." is as good as "Bearer mk_test_...".
func bearerToken(header string) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimLeft(token, " \t")
	return token, token != ""
}

func setRateHeaders(w http.ResponseWriter, d quota.Decision) {
	if d.Limit <= 0 {
		return // no daily cap on this plan
	}
	h := w.Header()
	limit, rem, reset := strconv.Itoa(d.Limit), strconv.FormatInt(d.Remaining, 10), strconv.Itoa(int(d.Reset.Seconds())+1)
	h.Set("RateLimit-Limit", limit)
	h.Set("RateLimit-Remaining", rem)
	h.Set("RateLimit-Reset", reset)
	h.Set("X-RateLimit-Limit", limit)
	h.Set("X-RateLimit-Remaining", rem)
	h.Set("X-RateLimit-Reset", reset)
}

// limitAgentBody enforces an agent route's body size: JSON as usual,
// multipart uploads streamed under the upload limit.
func (g *Gateway) limitAgentBody(w http.ResponseWriter, r *http.Request, rt routes.Route) bool {
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); rt.Body == routes.BodyUpload && mt == "multipart/form-data" {
		if r.ContentLength > g.opt.MaxUpload {
			g.fail(w, r, g.uploadTooLarge)
			return false
		}
		r.Body = http.MaxBytesReader(w, r.Body, g.opt.MaxUpload)
		return true
	}
	_, ok := g.limitBody(w, r, rt)
	return ok
}

// limitBody enforces the route's body size, buffering JSON bodies (they
// are small, and idempotency needs them) and streaming uploads (their
// idempotency fingerprints the stream: beginIdempotentUpload). It returns
// the buffered body (nil when streamed) and false when it has answered.
func (g *Gateway) limitBody(w http.ResponseWriter, r *http.Request, rt routes.Route) ([]byte, bool) {
	if rt.Body == routes.BodyNone {
		return nil, true
	}
	max, tooLarge := g.opt.MaxJSON, g.jsonTooLarge
	upload := false
	if rt.Body == routes.BodyUpload {
		mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if upload = mt == "multipart/form-data"; upload {
			max, tooLarge = g.opt.MaxUpload, g.uploadTooLarge
		}
	}
	if r.ContentLength > max {
		g.fail(w, r, tooLarge)
		return nil, false
	}
	if upload { // streamed, fingerprinted on the way when it has a key
		r.Body = http.MaxBytesReader(w, r.Body, max)
		return nil, true
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, max+1))
	if err != nil {
		g.fail(w, r, apperr.New(apperr.KindInvalid, apperr.CodeInvalidJSON, "Request body could not be read"))
		return nil, false
	}
	if int64(len(body)) > max {
		g.fail(w, r, tooLarge)
		return nil, false
	}
	r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	return body, true
}

// beginIdempotent claims the request's key or answers from what is
// stored. It returns true when the request should run.
func (g *Gateway) beginIdempotent(w http.ResponseWriter, r *http.Request, st *state, body []byte) bool {
	scope, k, ok := g.idemKey(w, r, st)
	if !ok {
		return false
	}
	fp := idempotency.Fingerprint(r.Method, r.URL.Path, body)
	outcome, stored, err := g.idem.Begin(r.Context(), scope, k, fp)
	if err != nil {
		g.fail(w, r, apperr.Unavailable("The idempotency store", err))
		return false
	}
	if outcome != idempotency.Proceed {
		g.answerIdempotent(w, r, outcome, stored)
		return false
	}
	st.idem = &idemClaim{scope: scope, key: k, fp: fp}
	return true
}

// beginIdempotentUpload is beginIdempotent for a multipart upload, which
// is never buffered: a first request is fingerprinted as it streams to the
// service (the proxy stores the answer under that fingerprint); a retry of
// a finished one is read through the hash and discarded, then compared.
func (g *Gateway) beginIdempotentUpload(w http.ResponseWriter, r *http.Request, st *state, _ []byte) bool {
	scope, k, ok := g.idemKey(w, r, st)
	if !ok {
		return false
	}
	stored, err := g.idem.Claim(r.Context(), scope, k, "")
	if err != nil {
		g.fail(w, r, apperr.Unavailable("The idempotency store", err))
		return false
	}
	body := idempotency.NewStreamedBody(r.Method, r.URL.Path, r.Header.Get("Content-Type"))
	if stored == nil { // the proxy attaches body to the outgoing request
		st.idem = &idemClaim{scope: scope, key: k, body: body}
		return true
	}
	if outcome := idempotency.Judge(stored, ""); outcome == idempotency.InProgress {
		g.answerIdempotent(w, r, outcome, stored)
		return false
	}
	body.Attach(r.Body)
	fp, err := body.Drain()
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			g.fail(w, r, g.uploadTooLarge)
		} else {
			g.fail(w, r, apperr.New(apperr.KindInvalid, apperr.CodeInvalidJSON, "Request body could not be read"))
		}
		return false
	}
	g.answerIdempotent(w, r, idempotency.Judge(stored, fp), stored)
	return false
}

// idemKey returns the request's Idempotency-Key and the scope it lives in
// (organization and environment; apart for callers that may not read, so
// that a write-only key never replays an answer stored for a key that
// could see the record), or answers 400 for a malformed key.
func (g *Gateway) idemKey(w http.ResponseWriter, r *http.Request, st *state) (scope, key string, ok bool) {
	key = r.Header.Get(idempotency.Header)
	if !idempotency.ValidKey(key) {
		g.fail(w, r, apperr.Validation(apperr.Detail{Field: idempotency.Header, Message: "must be 1-255 visible ASCII characters"}))
		return "", "", false
	}
	scope = st.p.OrgID + ":" + string(st.p.Env)
	if !st.p.HasScope(principal.ScopeRead) {
		scope += ":write-only"
	}
	return scope, key, true
}

// answerIdempotent answers a request whose key is already taken.
func (g *Gateway) answerIdempotent(w http.ResponseWriter, r *http.Request, outcome idempotency.Outcome, stored *idempotency.Stored) {
	switch outcome {
	case idempotency.Reused:
		g.fail(w, r, apperr.New(apperr.KindUnprocessable, CodeIdempotencyReused,
			"This Idempotency-Key was already used with a different request; use a new key for a new request"))
	case idempotency.InProgress:
		g.fail(w, r, apperr.New(apperr.KindConflict, CodeRequestInProgress,
			"A request with this Idempotency-Key is still being processed; retry shortly").WithHeader("Retry-After", "1"))
	default:
		h := w.Header()
		for name, vs := range stored.Header {
			h[name] = vs
		}
		h.Set(idempotency.ReplayedHeader, "true")
		w.WriteHeader(stored.Status)
		_, _ = w.Write(stored.Body)
	}
}

// abandon releases a claim after a failure that must not be replayed.
func (g *Gateway) abandon(ctx context.Context, c *idemClaim) {
	if err := g.idem.Abandon(context.WithoutCancel(ctx), c.scope, c.key); err != nil {
		g.log.WarnContext(ctx, "idempotency claim not released; it expires on its own", "err", err)
	}
}
