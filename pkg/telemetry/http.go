package telemetry

import (
	"net/http"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// HTTP metric names, shared by the gateway and every service (the
// dashboard in deploy/grafana queries them).
const (
	MetricHTTPRequests = "kyc_http_server_requests_total"
	MetricHTTPDuration = "kyc_http_server_duration_seconds"
)

// ServerOptions tune Server.
type ServerOptions struct {
	// TrustParent continues a trace whose traceparent arrives with the
	// request (an internal caller: the gateway). The gateway itself, facing
	// clients, leaves it false and starts every trace afresh.
	TrustParent bool
}

// Server wraps mux (a *http.ServeMux, or a handler that hands the
// request it gets to one unchanged) with a server span and the request
// metrics. Both are labelled with the mux pattern that matched (never the
// raw path, which holds ids): the mux writes it into the request it is
// given, which is the one this middleware made.
func (t *Telemetry) Server(mux http.Handler, o ServerOptions) http.Handler {
	tracer := t.Tracers.Tracer("github.com/kycfield/kyc/pkg/telemetry")
	meter := t.Meter("github.com/kycfield/kyc/pkg/telemetry")
	requests, _ := meter.Int64Counter(MetricHTTPRequests, metric.WithDescription("HTTP requests served, by route pattern and status"))
	latency, _ := meter.Float64Histogram(MetricHTTPDuration, metric.WithUnit("s"),
		metric.WithDescription("HTTP request latency, by route pattern"),
		metric.WithExplicitBucketBoundaries(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30))
	// Measurement options are built once per route (and status) rather
	// than on every request: the gateway serves thousands a second.
	type opts struct {
		add    metric.AddOption
		record metric.RecordOption
	}
	type key struct {
		route  string
		status int
	}
	var cache sync.Map // key -> opts
	optsFor := func(route string, status int) opts {
		k := key{route, status}
		if o, ok := cache.Load(k); ok {
			return o.(opts)
		}
		o := opts{add: metric.WithAttributeSet(attribute.NewSet(attribute.String("route", route), attribute.Int("status", status))),
			record: metric.WithAttributeSet(attribute.NewSet(attribute.String("route", route)))}
		cache.Store(k, o)
		return o
	}
	start := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindServer)}
	if !o.TrustParent {
		start = append(start, trace.WithNewRoot())
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		began := time.Now()
		ctx := r.Context()
		if o.TrustParent {
			ctx = propagator.Extract(ctx, propagation.HeaderCarrier(r.Header))
		}
		ctx, span := tracer.Start(ctx, r.Method, start...)
		defer span.End()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		in := r.WithContext(ctx)
		mux.ServeHTTP(sw, in)
		route := in.Pattern
		if route == "" {
			route = "unmatched"
		}
		if span.IsRecording() {
			span.SetName(route)
			span.SetAttributes(attribute.String("http.request.method", r.Method), attribute.String("http.route", route),
				attribute.Int("http.response.status_code", sw.status))
			if sw.status >= 500 {
				span.SetStatus(codes.Error, http.StatusText(sw.status))
			}
		}
		m := optsFor(route, sw.status)
		requests.Add(ctx, 1, m.add)
		latency.Record(ctx, time.Since(began).Seconds(), m.record)
	})
}

type statusWriter struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (s *statusWriter) WriteHeader(code int) {
	if !s.wrote {
		s.status, s.wrote = code, true
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(b []byte) (int, error) {
	s.wrote = true
	return s.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach Flush and deadlines.
func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// Transport wraps base (nil: http.DefaultTransport) so that every request
// gets a client span and carries its trace context in traceparent.
func (t *Telemetry) Transport(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return &transport{base: base, tracer: t.Tracers.Tracer("github.com/kycfield/kyc/pkg/telemetry")}
}

type transport struct {
	base   http.RoundTripper
	tracer trace.Tracer
}

func (t *transport) RoundTrip(r *http.Request) (*http.Response, error) {
	ctx, span := t.tracer.Start(r.Context(), r.Method, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("http.request.method", r.Method), attribute.String("server.address", r.URL.Host)))
	defer span.End()
	if sc := span.SpanContext(); sc.IsValid() {
		// A RoundTripper must not change the caller's request: a clone
		// carries the header.
		r = r.Clone(ctx)
		propagator.Inject(ctx, propagation.HeaderCarrier(r.Header))
	}
	resp, err := t.base.RoundTrip(r)
	if err != nil {
		span.SetStatus(codes.Error, "no response")
		return nil, err
	}
	span.SetAttributes(attribute.Int("http.response.status_code", resp.StatusCode))
	if resp.StatusCode >= 500 {
		span.SetStatus(codes.Error, http.StatusText(resp.StatusCode))
	}
	return resp, nil
}
