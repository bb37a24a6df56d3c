// Package telemetry sets up OpenTelemetry for one process: metrics exported
// in Prometheus format on /metrics (a registry per process, no globals) and
// traces exported over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set.
package telemetry

import (
	"context"
	"errors"
	"net/http"
	"os"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// Telemetry holds one process's providers.
type Telemetry struct {
	Meters  metric.MeterProvider
	Tracers trace.TracerProvider
	metrics http.Handler
	closers []func(context.Context) error
}

// New builds the providers for service.
func New(ctx context.Context, service string) (*Telemetry, error) {
	res := resource.NewSchemaless(semconv.ServiceName(service))
	reg := prometheus.NewRegistry()
	exp, err := otelprom.New(otelprom.WithRegisterer(reg))
	if err != nil {
		return nil, err
	}
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(exp), sdkmetric.WithResource(res))
	t := &Telemetry{
		Meters:  mp,
		Tracers: noop.NewTracerProvider(),
		metrics: promhttp.HandlerFor(reg, promhttp.HandlerOpts{}),
		closers: []func(context.Context) error{mp.Shutdown},
	}
	if os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "" {
		te, err := otlptracehttp.New(ctx)
		if err != nil {
			return nil, err
		}
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(noQueries{te}), sdktrace.WithResource(res))
		t.Tracers = tp
		t.closers = append(t.closers, tp.Shutdown)
	}
	return t, nil
}

// Tracing reports whether spans are recorded and exported (an OTLP
// endpoint is configured); without it every span is a no-op.
func (t *Telemetry) Tracing() bool {
	_, off := t.Tracers.(noop.TracerProvider)
	return !off
}

// Meter returns a meter named for an instrumentation scope.
func (t *Telemetry) Meter(name string) metric.Meter { return t.Meters.Meter(name) }

// MetricsHandler serves the Prometheus exposition.
func (t *Telemetry) MetricsHandler() http.Handler { return t.metrics }

// Shutdown flushes and stops the providers.
func (t *Telemetry) Shutdown(ctx context.Context) error {
	var errs []error
	for _, c := range t.closers {
		errs = append(errs, c(ctx))
	}
	return errors.Join(errs...)
}
