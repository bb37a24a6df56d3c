package logging_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"go.opentelemetry.io/otel/trace"

	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/pkg/requestid"
)

// A line logged in a request's context names the request and its trace,
// so that an operator can go from a log line to the trace and back.
func TestLinesCarryRequestAndTraceIDs(t *testing.T) {
	tid, _ := trace.TraceIDFromHex("4bf92f3577b34da6a3ce929d0e0e4736")
	sid, _ := trace.SpanIDFromHex("00f067aa0ba902b7")
	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled})
	ctx := trace.ContextWithSpanContext(requestid.With(context.Background(), "req_abc"), sc)

	var buf bytes.Buffer
	logging.NewTo(&buf, "customer", "info").With("op", "create").InfoContext(ctx, "endpoint", "code", "OK")
	var line map[string]any
	if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
		t.Fatalf("not JSON: %q", buf.String())
	}
	want := map[string]string{"service": "customer", "op": "create", "request_id": "req_abc",
		"trace_id": tid.String(), "span_id": sid.String(), "msg": "endpoint"}
	for k, v := range want {
		if line[k] != v {
			t.Errorf("%s = %v, want %q (line %s)", k, line[k], v, buf.String())
		}
	}

	buf.Reset()
	logging.NewTo(&buf, "customer", "info").Info("no request")
	if bytes.Contains(buf.Bytes(), []byte("trace_id")) || bytes.Contains(buf.Bytes(), []byte("request_id")) {
		t.Errorf("a line outside any request names one: %s", buf.String())
	}
}
