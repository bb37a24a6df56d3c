package telemetry

import (
	"context"
	"net/url"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// noQueries drops the query string (and any user info or fragment) from
// url.full before a span leaves the process. otelhttp's client spans
// record the whole URL, and ours would hold what must not leave the
// platform: a customer search (names, phone numbers, emails) proxied by
// the gateway, a token in a lender's webhook URL. (Server spans record
// url.path only.) It works on export because otelhttp sets the attribute
// after the span has started, when a span processor can no longer change
// it.
type noQueries struct{ sdktrace.SpanExporter }

func (e noQueries) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	out := make([]sdktrace.ReadOnlySpan, len(spans))
	for i, s := range spans {
		out[i] = s
		for j, kv := range s.Attributes() {
			if kv.Key != "url.full" {
				continue
			}
			if clean := withoutQuery(kv.Value.AsString()); clean != kv.Value.AsString() {
				stub := tracetest.SpanStubFromReadOnlySpan(s)
				stub.Attributes[j] = attribute.String("url.full", clean)
				out[i] = stub.Snapshot()
			}
			break
		}
	}
	return e.SpanExporter.ExportSpans(ctx, out)
}

func withoutQuery(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "unparsable"
	}
	u.RawQuery, u.ForceQuery, u.Fragment, u.User = "", false, "", nil
	return u.String()
}
