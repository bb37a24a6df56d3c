// Package edge is the gateway's request pipeline: request id, route
// lookup, API-key authentication, daily quota, scope and plan checks, body
// limits, idempotency, and the reverse proxy that forwards the call with a
// signed principal. It holds no business rules: what a plan allows comes
// from auth-billing, everything else from the owning service.
package edge

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"time"

	"github.com/kycfield/kyc/gateway/internal/idempotency"
	"github.com/kycfield/kyc/gateway/internal/keys"
	"github.com/kycfield/kyc/gateway/internal/quota"
	"github.com/kycfield/kyc/gateway/internal/routes"
	"github.com/kycfield/kyc/gateway/internal/usage"
	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/envelope"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/pkg/requestid"
)

// Error codes the gateway itself answers with (and
// apikey.CodePlanUpgradeRequired, shared with auth-billing).
const (
	CodeQuotaExceeded     = "QUOTA_EXCEEDED"
	CodeIdempotencyReused = "IDEMPOTENCY_KEY_REUSED"
	CodeRequestInProgress = "REQUEST_IN_PROGRESS"
)

// Options configure the pipeline.
type Options struct {
	Upstreams map[string]*url.URL
	MaxJSON   int64
	MaxUpload int64
	// TrustedHops is how many proxies in front of the gateway append to
	// X-Forwarded-For; 0 means the peer address is the client.
	TrustedHops int
	OpenAPI     []byte
	Timeout     time.Duration
	// Sessions lets a dashboard session call the public API; nil refuses.
	Sessions Sessions
	// Staff checks the operations console's sessions; nil refuses them.
	Staff Staff
	// Refusals records a member's requests refused for their role in the
	// organization's audit log; nil records nothing.
	Refusals Refusals
	// Instrument, when set, wraps the route mux (inside the request id, so
	// that the mux pattern it sees is the one that matched): server spans
	// and request metrics. Transport, when set, wraps the upstream
	// transport: client spans carrying the trace to the services.
	Instrument func(http.Handler) http.Handler
	Transport  func(http.RoundTripper) http.RoundTripper
	// Admit, when set, bounds the public-API requests in flight
	// (admit.Admitter): a request with no slot in time is answered with
	// its error before it is counted or forwarded.
	Admit Admission
}

// Admission hands out the public API's slots (admit.Admitter).
type Admission interface {
	Acquire(ctx context.Context, org string) (release func(), err error)
}

// Gateway is the public edge.
type Gateway struct {
	opt      Options
	log      *slog.Logger
	signer   *principal.Signer
	resolver *keys.Resolver
	limiter  *quota.Limiter
	idem     *idempotency.Store
	usage    *usage.Reporter
	proxies  map[string]*httputil.ReverseProxy
	buffers  *bufferPool
	// 413 answers, built once: the limits are fixed at start-up.
	jsonTooLarge, uploadTooLarge error
}

// New builds the gateway.
func New(opt Options, log *slog.Logger, signer *principal.Signer, r *keys.Resolver, l *quota.Limiter,
	idem *idempotency.Store, u *usage.Reporter) *Gateway {
	g := &Gateway{opt: opt, log: log, signer: signer, resolver: r, limiter: l, idem: idem, usage: u, proxies: map[string]*httputil.ReverseProxy{}, buffers: &bufferPool{}}
	g.jsonTooLarge, g.uploadTooLarge = tooLarge(opt.MaxJSON), tooLarge(opt.MaxUpload)
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           (&net.Dialer{Timeout: 3 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:          1024,
		MaxIdleConnsPerHost:   256,
		IdleConnTimeout:       90 * time.Second,
		ResponseHeaderTimeout: opt.Timeout,
	}
	var rt http.RoundTripper = tr
	if opt.Transport != nil {
		rt = opt.Transport(tr)
	}
	for name, u := range opt.Upstreams {
		g.proxies[name] = g.newProxy(name, u, rt)
	}
	return g
}

// Handler returns the whole pipeline.
func (g *Gateway) Handler(extra func(*http.ServeMux)) http.Handler {
	mux := http.NewServeMux()
	for _, rt := range routes.Table {
		mux.Handle(rt.Method+" "+rt.Pattern, g.route(rt))
	}
	if extra != nil {
		extra(mux)
	}
	mux.Handle("/", g.fallback(mux))
	var h http.Handler = noSniff(g.recoverer(g.refuseBadText(mux)))
	if g.opt.Instrument != nil {
		h = g.opt.Instrument(h)
	}
	return requestid.Middleware(h)
}

func (g *Gateway) route(rt routes.Route) http.Handler {
	switch rt.Auth {
	case routes.AuthPublic:
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/yaml")
			w.Header().Set("Cache-Control", "public, max-age=300")
			_, _ = w.Write(g.opt.OpenAPI)
		})
	case routes.AuthDashboard:
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if _, ok := g.limitBody(w, r, rt); !ok {
				return
			}
			g.forward(w, r, rt, &state{p: principal.Principal{Kind: principal.KindEdge, ClientIP: g.clientIP(r)}})
		})
	case routes.AuthStaff:
		return g.staff(rt)
	case routes.AuthOpen:
		return g.open(rt, newIPLimiter(openRate, openBurst, time.Now))
	case routes.AuthAgent:
		// The verification service checks the agent's session and makes its
		// calls idempotent in the transaction of their effect, so uploads
		// stream through unbuffered.
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !g.limitAgentBody(w, r, rt) {
				return
			}
			token, _ := bearerToken(r.Header.Get("Authorization"))
			g.forward(w, r, rt, &state{p: principal.Principal{Kind: principal.KindEdge, ClientIP: g.clientIP(r)}, agentToken: token})
		})
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { g.apiKey(w, r, rt) })
}

// fail writes an error envelope.
func (g *Gateway) fail(w http.ResponseWriter, r *http.Request, err error) {
	envelope.Fail(r.Context(), w, g.log, err)
}

// fallback answers paths no route matches: 405 with Allow when the path
// exists for other methods, 404 otherwise.
func (g *Gateway) fallback(mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var allowed []string
		for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete} {
			if m == r.Method {
				continue
			}
			if _, pat := mux.Handler(&http.Request{Method: m, URL: r.URL, Host: r.Host}); pat != "/" && pat != "" {
				allowed = append(allowed, m)
			}
		}
		if len(allowed) > 0 {
			g.fail(w, r, apperr.New(apperr.KindMethodNotAllowed, apperr.CodeMethodNotAllowed,
				r.Method+" is not allowed on this path").WithHeader("Allow", strings.Join(allowed, ", ")))
			return
		}
		g.fail(w, r, apperr.New(apperr.KindNotFound, apperr.CodeNotFound, "No endpoint at "+r.Method+" "+r.URL.Path))
	})
}

// noSniff sets X-Content-Type-Options: nosniff on every answer, JSON or
// not: a browser must never read a photo, a document, a report or the
// OpenAPI file as anything but its declared type (an upload that sniffs
// as HTML would run as the gateway's origin). The services set it on
// what they stream too, for whoever calls them directly.
func noSniff(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		next.ServeHTTP(w, r)
	})
}

func (g *Gateway) recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				g.log.ErrorContext(r.Context(), "panic", "panic", v)
				g.fail(w, r, apperr.Internal(nil))
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// clientIP is the peer address, or the X-Forwarded-For entry added by the
// outermost trusted proxy.
func (g *Gateway) clientIP(r *http.Request) string {
	if g.opt.TrustedHops > 0 {
		parts := strings.Split(r.Header.Get("X-Forwarded-For"), ",")
		if i := len(parts) - g.opt.TrustedHops; i >= 0 && i < len(parts) {
			if ip := strings.TrimSpace(parts[i]); net.ParseIP(ip) != nil {
				return ip
			}
		}
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

func tooLarge(limit int64) error {
	return apperr.New(apperr.KindTooLarge, apperr.CodePayloadTooLarge, fmt.Sprintf("Request body exceeds the limit of %d bytes", limit))
}
