package e2e

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kycfield/kyc/e2e/harness"
	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/eventually"
	"github.com/kycfield/kyc/pkg/otlptest"
)

// One sandbox customer created through the gateway is one trace, from the
// gateway's request through the customer service, its outbox and Kafka,
// the verification service (which consumes the event and publishes its
// own) and the webhook service's consumer to the webhook attempt: every
// process exports over OTLP to an in-process receiver, and the lender's
// receiver gets the trace's traceparent with every webhook of the
// customer, the sandbox's final verification.completed included.
//
// The test starts a platform of its own (the shared one exports nothing),
// with the standard OTEL_* variables set, so it does not run in parallel.
func TestOneTraceFromGatewayToWebhook(t *testing.T) {
	rcv := otlptest.Start()
	defer rcv.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", rcv.Endpoint())
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "100")
	q, err := harness.Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer q.Stop()

	_, key := q.NewKey(t, q.NewOrg(t, "growth"), "test")
	hooks := newHookReceiver(t, nil)
	r := q.API(t, "POST", "/api/v1/webhooks", key, map[string]any{"url": hooks.URL + "/kyc"})
	if r.Status != http.StatusCreated {
		t.Fatalf("register webhook: %d %s", r.Status, r.Body)
	}
	var endpoint hookEndpoint
	r.Decode(t, &endpoint)
	r = q.API(t, "POST", "/api/v1/customers", key, newCustomer(nil))
	if r.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}

	var traceID string
	eventually.True(t, patience, "the gateway's span of the create", func() bool {
		for _, s := range rcv.Spans() {
			if s.Service == "gateway" && s.Kind == "SPAN_KIND_SERVER" && s.Name == "POST /api/v1/customers" {
				traceID = s.TraceID
				return true
			}
		}
		return false
	})
	// Each hop, by the service that exports it and what it is.
	hops := []struct{ what, service, kind, name string }{
		{"gateway -> customer call", "gateway", "SPAN_KIND_CLIENT", "HTTP POST"},
		{"customer serves the create", "customer", "SPAN_KIND_SERVER", "POST /api/v1/customers"},
		{"customer's outbox relay publishes", "customer", "SPAN_KIND_PRODUCER", "publish " + q.Bus.Topic(event.TopicCustomer)},
		{"verification consumes it", "verification", "SPAN_KIND_CONSUMER", "process " + q.Bus.Topic(event.TopicCustomer)},
		{"verification's relay publishes the address update", "verification", "SPAN_KIND_PRODUCER", "publish " + q.Bus.Topic(event.TopicVerification)},
		{"webhook consumes it", "webhook", "SPAN_KIND_CONSUMER", "process " + q.Bus.Topic(event.TopicVerification)},
		{"webhook attempt", "webhook", "SPAN_KIND_INTERNAL", "webhook delivery"},
		{"webhook POST to the receiver", "webhook", "SPAN_KIND_CLIENT", "HTTP POST"},
	}
	// One tree: every span but the gateway's root has its parent in the
	// trace (spans arrive in batches, so the test waits for it).
	orphans := func(spans []otlptest.Span) []string {
		ids := map[string]bool{}
		for _, s := range spans {
			ids[s.SpanID] = true
		}
		var out []string
		for _, s := range spans {
			if s.ParentID == "" && !(s.Service == "gateway" && s.Kind == "SPAN_KIND_SERVER") || s.ParentID != "" && !ids[s.ParentID] {
				out = append(out, s.Service+" "+s.Name)
			}
		}
		return out
	}
	missing := func(spans []otlptest.Span) []string {
		var out []string
		for _, h := range hops {
			if !hasSpan(spans, h.service, h.kind, h.name) {
				out = append(out, h.what)
			}
		}
		return out
	}
	var spans []otlptest.Span
	for deadline := time.Now().Add(45 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		spans = rcv.Trace(traceID)
		m, o := missing(spans), orphans(spans)
		if len(m) == 0 && len(o) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("trace %s: missing %v; spans whose parent is not in it: %v", traceID, m, o)
		}
	}
	// The sandbox's simulated visit continues the trace, so every webhook
	// of the customer, to the final verification.completed, carries it.
	eventually.True(t, patience, "the verification.completed webhook", func() bool {
		return len(hooks.ofType(t, endpoint.Secret, "verification.completed")) == 1
	})
	for _, req := range hooks.requests() {
		if !strings.Contains(req.header.Get("traceparent"), "-"+traceID+"-") {
			t.Errorf("webhook %s carries traceparent %q, not trace %s: %.120s", req.header.Get("webhook-id"), req.header.Get("traceparent"), traceID, req.body)
		}
	}
}

func hasSpan(spans []otlptest.Span, service, kind, name string) bool {
	for _, s := range spans {
		if s.Service == service && s.Kind == kind && s.Name == name {
			return true
		}
	}
	return false
}
