package telemetry

import (
	"context"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// propagator is W3C Trace Context, the one format every hop of the
// platform speaks: HTTP headers, Kafka message headers and the
// traceparent column of the outbox and webhook message rows. Baggage is
// not propagated: nothing reads it, and it could carry client data.
var propagator = propagation.TraceContext{}

// Propagator returns the propagator every hop uses.
func Propagator() propagation.TextMapPropagator { return propagator }

// Traceparent returns ctx's span context as a W3C traceparent value, or
// "" when ctx carries none: what a row written now keeps so that its
// later processing (by a relay, a worker) joins the same trace.
func Traceparent(ctx context.Context) string {
	c := propagation.MapCarrier{}
	propagator.Inject(ctx, c)
	return c["traceparent"]
}

// WithTraceparent returns ctx carrying the remote span context of a
// traceparent value written earlier; "" or a malformed value leaves ctx
// as it is (the work starts a trace of its own).
func WithTraceparent(ctx context.Context, traceparent string) context.Context {
	if traceparent == "" {
		return ctx
	}
	return propagator.Extract(ctx, propagation.MapCarrier{"traceparent": traceparent})
}

// TraceID returns the trace id of ctx's span, or "" when there is none.
func TraceID(ctx context.Context) string {
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsValid() {
		return ""
	}
	return sc.TraceID().String()
}
