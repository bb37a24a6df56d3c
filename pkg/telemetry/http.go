package telemetry

import (
	"net/http"
	"sync"
	"time"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
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
	// clients, leaves it false: every request starts a trace of its own,
	// linked to (never a child of) whatever a client sent.
	TrustParent bool
}

// Server wraps mux (a *http.ServeMux, or a handler that hands the
// request it gets to one unchanged) with otelhttp's server span and our
// request metrics. Both are named by the mux pattern that matched (never
// the raw path, which holds ids): the mux writes it into the request it
// is given, which is the one otelhttp made and reads back after serving.
// otelhttp's own metrics are off: the kyc_http_* pair below is what the
// dashboard reads, labelled by route as the semantic-convention ones are
// not on every version.
func (t *Telemetry) Server(mux http.Handler, o ServerOptions) http.Handler {
	opts := []otelhttp.Option{otelhttp.WithTracerProvider(t.Tracers), otelhttp.WithPropagators(propagator),
		otelhttp.WithMeterProvider(metricnoop.NewMeterProvider()), otelhttp.WithSpanNameFormatter(spanName)}
	if !o.TrustParent {
		opts = append(opts, otelhttp.WithPublicEndpointFn(func(*http.Request) bool { return true }))
	}
	return otelhttp.NewHandler(t.measured(mux), "http", opts...)
}

// spanName is the route pattern once the mux has matched, the method
// before (and for requests no route matched).
func spanName(_ string, r *http.Request) string {
	if r.Pattern != "" {
		return r.Pattern
	}
	return r.Method
}

// measured counts and times every request by route pattern and status.
func (t *Telemetry) measured(mux http.Handler) http.Handler {
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
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		began := time.Now()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		mux.ServeHTTP(sw, r)
		route := r.Pattern
		if route == "" {
			route = "unmatched"
		} else if span := trace.SpanFromContext(r.Context()); span.IsRecording() {
			span.SetAttributes(attribute.String("http.route", route))
		}
		m := optsFor(route, sw.status)
		requests.Add(r.Context(), 1, m.add)
		latency.Record(r.Context(), time.Since(began).Seconds(), m.record)
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

// Transport wraps base (nil: http.DefaultTransport) with otelhttp's client
// span, which also carries the trace context in traceparent.
func (t *Telemetry) Transport(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return otelhttp.NewTransport(base, otelhttp.WithTracerProvider(t.Tracers), otelhttp.WithPropagators(propagator),
		otelhttp.WithMeterProvider(metricnoop.NewMeterProvider()))
}
