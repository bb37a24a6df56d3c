package inbox_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/segmentio/kafka-go"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/eventually"
	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/pkg/kafkabus"
	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/pkg/pgtest"
	"github.com/kycfield/kyc/pkg/telemetry"
)

// A message whose headers carry a producer's trace is applied in a
// consumer span of that trace (so the handler's context, and the events
// it writes, are in it); and while the consumer is held up, its lag says
// where it has got to: the offset after the last message it applied.
func TestConsumerJoinsTheProducersTraceAndKeepsItsPosition(t *testing.T) {
	t.Parallel()
	bus, topic, publish := newTopic(t, "traced")
	tid, _ := trace.TraceIDFromHex("4bf92f3577b34da6a3ce929d0e0e4736")
	sid, _ := trace.SpanIDFromHex("00f067aa0ba902b7")
	producer := trace.ContextWithSpanContext(context.Background(),
		trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled, Remote: true}))
	var events []event.Event
	for range 4 {
		e, _ := event.New("ok", "org", "test", nil)
		events = append(events, e)
		b, _ := json.Marshal(e)
		m := kafka.Message{Value: b}
		telemetry.Propagator().Inject(producer, kafkabus.Headers{H: &m.Headers})
		publish(m)
	}

	pool, _ := pgtest.NewDB(t, inbox.Migration())
	hold, seen := make(chan struct{}), make(chan string, 4)
	h := func(ctx context.Context, _ pgx.Tx, e event.Event) error {
		seen <- telemetry.TraceID(ctx)
		if e.ID == events[2].ID {
			<-hold
		}
		return nil
	}
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	group := bus.TopicPrefix + "traced"
	r := kafkabus.NewGroupReader(bus, group, topic)
	defer r.Close()
	c := inbox.New(group, r, pool, logging.Discard(), h).WithTracing(tp)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = c.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	for i := range 3 {
		select {
		case got := <-seen:
			if got != tid.String() {
				t.Fatalf("event %d handled in trace %q, want %s", i, got, tid)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("the consumer handled nothing")
		}
	}
	// Two applied, the third held: next is the third (offset 2; one key,
	// so one partition).
	if next := nextOffsets(c); len(next) != 1 || next[0] != 2 {
		t.Errorf("next offsets while held after two = %v, want [2]", next)
	}
	close(hold)
	<-seen
	eventually.Value(t, 10*time.Second, "next offset 4", func() ([]int64, bool) {
		next := nextOffsets(c)
		return next, len(next) == 1 && next[0] == 4
	})
	ended := spans.Ended()
	if len(ended) < 3 {
		t.Fatalf("%d consumer spans ended", len(ended))
	}
	for _, s := range ended {
		if s.SpanKind() != trace.SpanKindConsumer || s.Parent().SpanID() != sid || s.Name() != "process "+topic {
			t.Errorf("span %q kind %v parent %v", s.Name(), s.SpanKind(), s.Parent().SpanID())
		}
	}
}

// nextOffsets lists c.Next()'s offsets.
func nextOffsets(c *inbox.Consumer) []int64 {
	var out []int64
	for _, n := range c.Next() {
		out = append(out, n)
	}
	return out
}
