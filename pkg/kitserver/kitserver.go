// Package kitserver adapts go-kit endpoints to the platform's HTTP
// conventions: typed endpoints paired with typed request decoders,
// responses and errors in the envelope, one instrumentation middleware
// keyed by operation name (log line with duration and error code, request
// counter and latency histogram) instead of per-method wrappers.
package kitserver

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/go-kit/kit/endpoint"
	kithttp "github.com/go-kit/kit/transport/http"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/envelope"
)

// Result is what an endpoint returns on success.
type Result struct {
	Status  int
	Message string
	Data    any
	// Cookies are set on the response (dashboard sessions).
	Cookies []*http.Cookie
	// Header holds response headers beside the envelope (Retry-After on
	// a status that is not final: a hint to pollers).
	Header http.Header
}

// Endpoint is a go-kit endpoint that takes requests of type Req.
// NewHandler pairs it with a decoder of the same Req, so the compiler
// checks what service code would otherwise assert with req.(T).
type Endpoint[Req any] struct{ kit endpoint.Endpoint }

// NewEndpoint makes fn an Endpoint wrapped in mw, the first outermost (as
// endpoint.Chain), typically an Instrumenter's Wrap.
func NewEndpoint[Req any](fn func(ctx context.Context, req Req) (Result, error), mw ...endpoint.Middleware) Endpoint[Req] {
	e := func(ctx context.Context, req any) (any, error) {
		r, ok := req.(Req)
		if !ok {
			// Only a caller of Kit can get here; NewHandler cannot.
			return nil, apperr.Internal(fmt.Errorf("kitserver: endpoint for %T called with %T", r, req))
		}
		return fn(ctx, r)
	}
	for i := len(mw) - 1; i >= 0; i-- {
		e = mw[i](e)
	}
	return Endpoint[Req]{kit: e}
}

// Kit returns the go-kit endpoint, for go-kit transports and middleware.
func (e Endpoint[Req]) Kit() endpoint.Endpoint { return e.kit }

// Call runs the endpoint, middleware included, with req.
func (e Endpoint[Req]) Call(ctx context.Context, req Req) (Result, error) {
	resp, err := e.kit(ctx, req)
	res, _ := resp.(Result)
	return res, err
}

// NewHandler serves e over HTTP: dec turns the request into a Req (its
// error, such as a jsonbody validation error, is answered as it is,
// without calling e), and e's Result or error is written as an envelope.
// It is the only way to serve an endpoint: there is no untyped form, so
// service code never asserts req.(T). A GET or HEAD that fails for a lost
// connection is run once more (retryRead).
func NewHandler[Req any](e Endpoint[Req], dec func(context.Context, *http.Request) (Req, error), log *slog.Logger) http.Handler {
	return kithttp.NewServer(retryRead(e.kit, log),
		func(ctx context.Context, r *http.Request) (any, error) { return dec(ctx, r) },
		func(ctx context.Context, w http.ResponseWriter, resp any) error {
			res := resp.(Result)
			for _, c := range res.Cookies {
				http.SetCookie(w, c)
			}
			for k, v := range res.Header {
				w.Header()[k] = v
			}
			status := res.Status
			if status == 0 {
				status = http.StatusOK
			}
			envelope.OK(ctx, w, status, res.Message, res.Data)
			return nil
		},
		kithttp.ServerBefore(markRead),
		kithttp.ServerErrorEncoder(func(ctx context.Context, err error, w http.ResponseWriter) {
			envelope.Fail(ctx, w, log, err)
		}),
	)
}

// Instrumenter builds the per-operation middleware.
type Instrumenter struct {
	log      *slog.Logger
	requests metric.Int64Counter
	latency  metric.Float64Histogram
}

// NewInstrumenter registers the endpoint metrics on meter.
func NewInstrumenter(log *slog.Logger, meter metric.Meter) *Instrumenter {
	req, _ := meter.Int64Counter("kyc_endpoint_requests_total", metric.WithDescription("Endpoint calls by operation and result code"))
	lat, _ := meter.Float64Histogram("kyc_endpoint_duration_seconds", metric.WithDescription("Endpoint latency by operation"), metric.WithUnit("s"))
	return &Instrumenter{log: log, requests: req, latency: lat}
}

// Wrap returns middleware for the named operation.
func (in *Instrumenter) Wrap(op string) endpoint.Middleware {
	// The attribute sets of the answers that are not errors are built
	// once: a set is sorted and allocated, on every call otherwise.
	opSet := metric.WithAttributeSet(attribute.NewSet(attribute.String("operation", op)))
	okSet := metric.WithAttributeSet(attribute.NewSet(attribute.String("operation", op), attribute.String("code", "OK")))
	return func(next endpoint.Endpoint) endpoint.Endpoint {
		return func(ctx context.Context, req any) (any, error) {
			start := time.Now()
			resp, err := next(ctx, req)
			d := time.Since(start)
			code, attrs := "OK", okSet
			if err != nil {
				code = apperr.Public(err).Code // as the client is answered
				attrs = metric.WithAttributes(attribute.String("operation", op), attribute.String("code", code))
			}
			in.requests.Add(ctx, 1, attrs)
			in.latency.Record(ctx, d.Seconds(), opSet)
			if in.log.Enabled(ctx, slog.LevelDebug) {
				in.log.DebugContext(ctx, "endpoint", "op", op, "code", code, "duration_ms", float64(d.Microseconds())/1000)
			}
			return resp, err
		}
	}
}
