package edge

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"sync"

	"github.com/kycfield/kyc/gateway/internal/idempotency"
	"github.com/kycfield/kyc/gateway/internal/routes"
	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/pkg/requestid"
)

// state travels with a request from the pipeline to the proxy hooks.
type state struct {
	p    principal.Principal
	idem *idemClaim
	// agentToken is a field agent's session token (agent routes), handed
	// on in principal.AgentTokenHeader.
	agentToken string
	// reserved is what a bulk import's start took from the quota
	// (ReservesRows), given back unless the service used it.
	reserved *reservation
}

// idemClaim is a claimed Idempotency-Key; an upload's fingerprint is
// known only once it has streamed (body).
type idemClaim struct {
	scope, key, fp string
	body           *idempotency.StreamedBody
}

type stateKey struct{}

func stateOf(ctx context.Context) *state {
	st, _ := ctx.Value(stateKey{}).(*state)
	return st
}

// forward proxies the request to the route's service.
func (g *Gateway) forward(w http.ResponseWriter, r *http.Request, rt routes.Route, st *state) {
	p, ok := g.proxies[rt.Service]
	if !ok {
		g.fail(w, r, apperr.Unavailable("The "+rt.Service+" service", errors.New("no upstream configured")))
		return
	}
	p.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), stateKey{}, st)))
}

// maxStoredResponse bounds what idempotency keeps of a response.
const maxStoredResponse = 1 << 20

func (g *Gateway) newProxy(name string, target *url.URL, tr http.RoundTripper) *httputil.ReverseProxy {
	return &httputil.ReverseProxy{
		Transport:  tr,
		BufferPool: g.buffers,
		Rewrite: func(pr *httputil.ProxyRequest) {
			st := stateOf(pr.In.Context())
			pr.SetURL(target)
			pr.SetXForwarded()
			pr.Out.Host = pr.In.Host
			pr.Out.Header.Del("Authorization") // services never see API keys
			pr.Out.Header.Del(principal.AgentTokenHeader)
			if st.agentToken != "" {
				pr.Out.Header.Set(principal.AgentTokenHeader, st.agentToken)
			}
			if st.idem != nil && st.idem.body != nil {
				pr.Out.Body = st.idem.body.Attach(pr.Out.Body)
			}
			if st.p.Kind != principal.KindEdge {
				pr.Out.Header.Del("Cookie")
			}
			// X-Request-Id is already on the request (requestid.Middleware).
			pr.Out.Header.Set(principal.Header, g.signer.Sign(st.p, pr.Out.Method, pr.Out.URL.EscapedPath()))
		},
		ModifyResponse: func(resp *http.Response) error {
			// The gateway's own (noSniff) is the one a client gets: the
			// proxy adds upstream headers to those already set.
			resp.Header.Del("X-Content-Type-Options")
			st := stateOf(resp.Request.Context())
			if st != nil && resp.StatusCode != http.StatusAccepted {
				g.release(resp.Request.Context(), st)
			}
			if st == nil || st.idem == nil {
				return nil
			}
			if resp.StatusCode >= 500 {
				g.abandon(resp.Request.Context(), st.idem)
				return nil
			}
			body, err := io.ReadAll(io.LimitReader(resp.Body, maxStoredResponse+1))
			resp.Body.Close()
			if err != nil {
				g.abandon(resp.Request.Context(), st.idem)
				return err
			}
			resp.Body = io.NopCloser(bytes.NewReader(body))
			resp.ContentLength = int64(len(body))
			resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
			if len(body) > maxStoredResponse {
				g.abandon(resp.Request.Context(), st.idem)
				return nil
			}
			fp := st.idem.fp
			if st.idem.body != nil {
				if fp, err = st.idem.body.Sum(resp.Request.Context()); err != nil {
					g.abandon(resp.Request.Context(), st.idem)
					return nil // the answer still reaches the client; a retry runs again
				}
			}
			keep := http.Header{}
			for _, h := range []string{"Content-Type", requestid.Header, "Location"} {
				if v := resp.Header.Values(h); len(v) > 0 {
					keep[h] = v
				}
			}
			stored := idempotency.Stored{Fingerprint: fp, Status: resp.StatusCode, Header: keep, Body: body}
			if err := g.idem.Complete(context.WithoutCancel(resp.Request.Context()), st.idem.scope, st.idem.key, stored); err != nil {
				g.log.WarnContext(resp.Request.Context(), "idempotent response not stored", "err", err)
				g.abandon(resp.Request.Context(), st.idem)
			}
			return nil
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			if st := stateOf(r.Context()); st != nil && st.idem != nil {
				g.abandon(r.Context(), st.idem)
			}
			if st := stateOf(r.Context()); st != nil {
				g.release(r.Context(), st)
			}
			if errors.Is(err, context.Canceled) {
				return // the client went away
			}
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				g.fail(w, r, apperr.New(apperr.KindTooLarge, apperr.CodePayloadTooLarge, "Request body exceeds the upload limit"))
				return
			}
			g.fail(w, r, apperr.Unavailable("The "+name+" service", err))
		},
	}
}

// bufferPool recycles the 32 KiB copy buffers that ReverseProxy otherwise
// allocates for every response; at thousands of requests per second they
// are most of the gateway's garbage.
type bufferPool struct{ p sync.Pool }

func (b *bufferPool) Get() []byte {
	if v, ok := b.p.Get().(*[]byte); ok {
		return *v
	}
	return make([]byte, 32<<10)
}

func (b *bufferPool) Put(buf []byte) { b.p.Put(&buf) }
