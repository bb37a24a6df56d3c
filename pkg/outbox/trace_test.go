package outbox_test

import (
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/eventually"
	"github.com/kycfield/kyc/pkg/kafkabus"
	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/pkg/outbox"
	"github.com/kycfield/kyc/pkg/telemetry"
)

// An event written in a traced transaction is published in a producer
// span of that trace, and the message's traceparent names that span; the
// backlog gauges show the event waiting, then gone.
func TestRelayPublishesInTheWritersTraceAndBacklogIsMeasured(t *testing.T) {
	t.Parallel()
	pool, bus, topic := setup(t)
	tel, err := telemetry.New(context.Background(), "things")
	if err != nil {
		t.Fatal(err)
	}
	if err := outbox.RegisterMetrics(tel.Meter("test"), pool); err != nil {
		t.Fatal(err)
	}
	tid, _ := trace.TraceIDFromHex("4bf92f3577b34da6a3ce929d0e0e4736")
	sid, _ := trace.SpanIDFromHex("00f067aa0ba902b7")
	ctx := trace.ContextWithSpanContext(context.Background(),
		trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled}))
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	e, _ := event.New("thing.happened", "org_1", "test", nil)
	if err := outbox.Add(ctx, tx, outbox.Message{Topic: topic, Key: "k", Event: e}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond) // the oldest event's age is above zero
	m := scrape(tel)
	if !strings.Contains(m, `kyc_outbox_backlog{otel_scope_name="test",otel_scope_schema_url="",otel_scope_version=""} 1`+"\n") ||
		!strings.Contains(m, `kyc_outbox_oldest_age_seconds{otel_scope_name="test",otel_scope_schema_url="",otel_scope_version=""} 0.`) {
		t.Fatalf("before relaying:\n%s", m)
	}

	spans := tracetest.NewSpanRecorder()
	rctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	w := kafkabus.NewWriter(bus)
	defer w.Close()
	go func() {
		_ = outbox.NewRelay(pool, w, logging.Discard()).WithTracing(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))).Run(rctx)
		close(done)
	}()
	defer func() { cancel(); <-done }()
	r := kafkabus.NewGroupReader(bus, bus.TopicPrefix+"check", topic)
	defer r.Close()
	fctx, fcancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer fcancel()
	msg, err := r.FetchMessage(fctx)
	if err != nil {
		t.Fatal(err)
	}
	// The span whose context the message carries is a producer span, child
	// of the writer's (an attempt that failed first, on a topic the writer
	// did not know yet, has a span of its own).
	carried := trace.SpanContextFromContext(telemetry.WithTraceparent(context.Background(), kafkabus.Headers{H: &msg.Headers}.Get("traceparent")))
	if carried.TraceID() != tid {
		t.Fatalf("message traceparent %q: not in trace %s", kafkabus.Headers{H: &msg.Headers}.Get("traceparent"), tid)
	}
	// The span ends once the batch is marked sent.
	eventually.Value(t, 5*time.Second, "an ended span that is the message's "+carried.SpanID().String(), func() (string, bool) {
		ended := spans.Ended()
		for _, s := range ended {
			if s.SpanContext().SpanID() == carried.SpanID() {
				if s.SpanKind() != trace.SpanKindProducer || s.Parent().SpanID() != sid || s.Name() != "publish "+topic {
					t.Fatalf("producer span %q kind %v parent %v", s.Name(), s.SpanKind(), s.Parent().SpanID())
				}
				return "", true
			}
		}
		return fmt.Sprint(ended), false
	})
	eventually.Value(t, 10*time.Second, "an outbox backlog of 0", func() (string, bool) {
		m := scrape(tel)
		return m, strings.Contains(m, `kyc_outbox_backlog{otel_scope_name="test",otel_scope_schema_url="",otel_scope_version=""} 0`)
	})
}

func scrape(tel *telemetry.Telemetry) string {
	rec := httptest.NewRecorder()
	tel.MetricsHandler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	b, _ := io.ReadAll(rec.Body)
	return string(b)
}
