package telemetry

import (
	"net/http"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
)

// MetricHTTPDuration is otelhttp's request-duration histogram, named by
// the semantic conventions (the dashboard in deploy/grafana queries it;
// its _count is the request rate). It carries http_route (the mux
// pattern, absent when no route matched), http_request_method and
// http_response_status_code.
const MetricHTTPDuration = "http_server_request_duration_seconds"

// ServerOptions tune Server.
type ServerOptions struct {
	// TrustParent continues a trace whose traceparent arrives with the
	// request (an internal caller: the gateway). The gateway itself, facing
	// clients, leaves it false: every request starts a trace of its own,
	// linked to (never a child of) whatever a client sent.
	TrustParent bool
}

// Server wraps mux (a *http.ServeMux, or a handler that hands the
// request it gets to one unchanged) with otelhttp: a server span and the
// request-duration histogram, both named by the mux pattern that matched
// (never the raw path, which holds ids). The mux writes the pattern into
// the request it is given, which is the one otelhttp made and reads back
// after serving.
func (t *Telemetry) Server(mux http.Handler, o ServerOptions) http.Handler {
	opts := []otelhttp.Option{otelhttp.WithTracerProvider(t.Tracers), otelhttp.WithPropagators(propagator),
		otelhttp.WithMeterProvider(t.Meters), otelhttp.WithSpanNameFormatter(spanName)}
	if !o.TrustParent {
		opts = append(opts, otelhttp.WithPublicEndpointFn(func(*http.Request) bool { return true }))
	}
	return otelhttp.NewHandler(mux, "http", opts...)
}

// spanName is the route pattern once the mux has matched, the method
// before (and for requests no route matched).
func spanName(_ string, r *http.Request) string {
	if r.Pattern != "" {
		return r.Pattern
	}
	return r.Method
}

// Transport wraps base (nil: http.DefaultTransport) with otelhttp's client
// span, which also carries the trace context in traceparent.
func (t *Telemetry) Transport(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return otelhttp.NewTransport(base, otelhttp.WithTracerProvider(t.Tracers), otelhttp.WithPropagators(propagator),
		otelhttp.WithMeterProvider(metricnoop.NewMeterProvider()))
}
