package edge

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/kycfield/kyc/gateway/internal/idempotency"
	"github.com/kycfield/kyc/gateway/internal/keys"
	"github.com/kycfield/kyc/gateway/internal/quota"
	"github.com/kycfield/kyc/gateway/internal/routes"
	"github.com/kycfield/kyc/gateway/internal/usage"
	"github.com/kycfield/kyc/pkg/apikey"
	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/pkg/principal"
)

// source stands in for auth-billing: it knows the keys the test issued.
type source struct {
	mu   sync.Mutex
	keys map[string]keys.KeyState
	org  keys.OrgState
}

func (s *source) Resolve(_ context.Context, hash string) (keys.KeyState, keys.OrgState, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k, ok := s.keys[hash]
	if !ok {
		return keys.KeyState{}, keys.OrgState{}, keys.ErrNotFound
	}
	return k, s.org, nil
}

// testGateway is the real pipeline in front of a stub service.
type testGateway struct {
	handler  http.Handler
	src      *source
	metrics  *sdkmetric.ManualReader
	limiter  *quota.Limiter
	upstream *httptest.Server
	serve    atomic.Pointer[http.HandlerFunc] // replaces the stub service when set
}

// newTestGateway builds the gateway on rdb (keys under prefix) for one
// organization on plan, with every service answered by a stub; edit may
// adjust the options.
func newTestGateway(t *testing.T, rdb redis.UniversalClient, prefix string, plan keys.Plan, edit ...func(*Options)) *testGateway {
	t.Helper()
	tg := &testGateway{}
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h := tg.serve.Load(); h != nil {
			(*h)(w, r)
			return
		}
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		status := http.StatusOK
		if r.Method == http.MethodPost {
			status = http.StatusCreated
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, `{"status":true,"message":"ok","data":{}}`)
	}))
	t.Cleanup(up.Close)
	u, _ := url.Parse(up.URL)
	upstreams := map[string]*url.URL{}
	for _, rt := range routes.Table {
		upstreams[rt.Service] = u
	}
	signer, err := principal.NewSigner([]string{"edge-test-principal-secret"}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	reader := sdkmetric.NewManualReader()
	meter := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)).Meter("gateway")
	log := logging.Discard()
	src := &source{keys: map[string]keys.KeyState{}, org: keys.OrgState{ID: "org_edge", Plan: plan, Version: 1}}
	resolver := keys.NewResolver(rdb, prefix, src, keys.Options{LocalTTL: time.Minute, SharedTTL: time.Hour, NegativeTTL: time.Minute}, log, meter)
	limiter := quota.New(rdb, prefix, log, meter)
	opt := Options{Upstreams: upstreams, MaxJSON: 1 << 20, MaxUpload: 10 << 20, Timeout: 10 * time.Second}
	for _, e := range edit {
		e(&opt)
	}
	gw := New(opt, log, signer, resolver, limiter, idempotency.New(rdb, prefix, time.Hour, time.Minute), usage.New(nil, "", time.Hour, log))
	tg.handler, tg.src, tg.metrics, tg.limiter, tg.upstream = gw.Handler(nil), src, reader, limiter, up
	return tg
}

// newKey issues a key of env with the read and write scopes.
func (g *testGateway) newKey(env principal.Env) string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	secret := apikey.Prefix(env) + hex.EncodeToString(b[:])
	k := keys.KeyState{ID: "key_" + hex.EncodeToString(b[:4]), Hash: apikey.HashHex(secret), OrgID: g.src.org.ID, Env: env,
		Scopes: []string{principal.ScopeRead, principal.ScopeWrite}, Version: 1}
	g.src.mu.Lock()
	g.src.keys[k.Hash] = k
	g.src.mu.Unlock()
	return secret
}

// do sends a request through the pipeline with an Authorization header.
func (g *testGateway) do(method, path, authorization, body string) *httptest.ResponseRecorder {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	r := httptest.NewRequest(method, path, rd)
	if body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	if authorization != "" {
		r.Header.Set("Authorization", authorization)
	}
	w := httptest.NewRecorder()
	g.handler.ServeHTTP(w, r)
	return w
}

// counter returns the sum of a counter's data points.
func (g *testGateway) counter(t *testing.T, name string) int64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := g.metrics.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if s, ok := m.Data.(metricdata.Sum[int64]); ok && m.Name == name {
				for _, dp := range s.DataPoints {
					n += dp.Value
				}
			}
		}
	}
	return n
}
