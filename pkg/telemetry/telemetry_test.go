package telemetry_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kycfield/kyc/pkg/otlptest"
	"github.com/kycfield/kyc/pkg/telemetry"
)

// A request through an edge (which starts its own trace whatever the
// client sends) to a service (which continues the edge's) is one trace:
// edge server span, its client span, the service's server span, each
// named by the route pattern, never the path with its ids; and the
// service's /metrics counts it by pattern and status.
func TestOneTraceAcrossHTTPHopsAndRouteMetrics(t *testing.T) {
	rcv := otlptest.Start()
	defer rcv.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", rcv.Endpoint())
	ctx := context.Background()
	edgeTel, err := telemetry.New(ctx, "edge")
	if err != nil {
		t.Fatal(err)
	}
	svcTel, err := telemetry.New(ctx, "items")
	if err != nil {
		t.Fatal(err)
	}

	items := http.NewServeMux()
	items.HandleFunc("GET /items/{id}", func(w http.ResponseWriter, r *http.Request) {
		if telemetry.TraceID(r.Context()) == "" {
			t.Error("the handler's context has no trace")
		}
		w.WriteHeader(http.StatusTeapot)
	})
	svc := httptest.NewServer(svcTel.Server(items, telemetry.ServerOptions{TrustParent: true}))
	defer svc.Close()
	client := &http.Client{Transport: edgeTel.Transport(nil)}
	front := http.NewServeMux()
	front.HandleFunc("GET /v1/items/{id}", func(w http.ResponseWriter, r *http.Request) {
		req, _ := http.NewRequestWithContext(r.Context(), "GET", svc.URL+"/items/"+r.PathValue("id")+"?"+r.URL.RawQuery, nil)
		resp, err := client.Do(req)
		if err != nil {
			t.Error(err)
			return
		}
		resp.Body.Close()
		w.WriteHeader(resp.StatusCode)
	})
	edge := httptest.NewServer(edgeTel.Server(front, telemetry.ServerOptions{}))
	defer edge.Close()

	req, _ := http.NewRequest("GET", edge.URL+"/v1/items/itm_secret42?search=08031234567", nil)
	forged := "00-11111111111111111111111111111111-2222222222222222-01"
	req.Header.Set("traceparent", forged)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTeapot {
		t.Fatalf("status %d", resp.StatusCode)
	}
	metrics := scrape(t, svcTel)
	_ = edgeTel.Shutdown(ctx) // flushes the spans
	_ = svcTel.Shutdown(ctx)

	spans := rcv.Spans()
	if len(spans) != 3 {
		t.Fatalf("got %d spans, want 3: %+v", len(spans), spans)
	}
	byName := map[string]otlptest.Span{}
	for _, s := range spans {
		byName[s.Service+" "+s.Kind+" "+s.Name] = s
		if s.TraceID != spans[0].TraceID {
			t.Errorf("span %s is in trace %s, not %s", s.Name, s.TraceID, spans[0].TraceID)
		}
		if strings.Contains(s.Name, "secret42") {
			t.Errorf("span named with the raw path: %s", s.Name)
		}
		for k, v := range s.Attrs {
			if strings.Contains(v, "08031234567") {
				t.Errorf("span %s keeps the query (a customer search) in %s: %s", s.Name, k, v)
			}
		}
	}
	root, ok1 := byName["edge SPAN_KIND_SERVER GET /v1/items/{id}"]
	call, ok2 := byName["edge SPAN_KIND_CLIENT HTTP GET"]
	served, ok3 := byName["items SPAN_KIND_SERVER GET /items/{id}"]
	if !ok1 || !ok2 || !ok3 {
		t.Fatalf("spans: %+v", spans)
	}
	if root.TraceID == "11111111111111111111111111111111" || root.ParentID != "" {
		t.Errorf("the edge continued the client's trace: %+v", root)
	}
	if call.ParentID != root.SpanID || served.ParentID != call.SpanID {
		t.Errorf("parents: client %s (want %s), service %s (want %s)", call.ParentID, root.SpanID, served.ParentID, call.SpanID)
	}
	for _, want := range []string{
		`http_server_request_duration_seconds_count{http_request_method="GET",http_response_status_code="418",http_route="/items/{id}",`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s\n%s", want, grep(metrics, "http_server"))
		}
	}
}

// With no OTLP endpoint nothing is exported, yet trace context still
// passes through: a service behind the gateway keeps the caller's trace
// in its context (and so in the rows it writes).
func TestNoExporterStillPropagates(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	tel, err := telemetry.New(context.Background(), "items")
	if err != nil {
		t.Fatal(err)
	}
	var seen string
	mux := http.NewServeMux()
	mux.HandleFunc("GET /x", func(w http.ResponseWriter, r *http.Request) { seen = telemetry.Traceparent(r.Context()) })
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("GET", "/x", nil)
	tp := "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	req.Header.Set("traceparent", tp)
	tel.Server(mux, telemetry.ServerOptions{TrustParent: true}).ServeHTTP(rec, req)
	if seen != tp {
		t.Errorf("handler saw traceparent %q, want %q", seen, tp)
	}
	if got := telemetry.TraceID(telemetry.WithTraceparent(context.Background(), tp)); got != "4bf92f3577b34da6a3ce929d0e0e4736" {
		t.Errorf("WithTraceparent: trace %q", got)
	}
	if got := telemetry.WithTraceparent(context.Background(), "garbage"); telemetry.TraceID(got) != "" {
		t.Error("a malformed traceparent gave a trace")
	}
}

func scrape(t *testing.T, tel *telemetry.Telemetry) string {
	t.Helper()
	rec := httptest.NewRecorder()
	tel.MetricsHandler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	b, _ := io.ReadAll(rec.Body)
	return string(b)
}

func grep(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// BenchmarkServerNoExport is the middleware's cost per request on the
// gateway's hot path with tracing off (spans are no-ops, metrics count).
func BenchmarkServerNoExport(b *testing.B) {
	b.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	tel, err := telemetry.New(context.Background(), "bench")
	if err != nil {
		b.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /items/{id}", func(w http.ResponseWriter, r *http.Request) {})
	for _, c := range []struct {
		name string
		h    http.Handler
	}{{"bare mux", mux}, {"instrumented", tel.Server(mux, telemetry.ServerOptions{})}} {
		b.Run(c.name, func(b *testing.B) {
			req := httptest.NewRequest("GET", "/items/itm_1", nil)
			w := httptest.NewRecorder()
			b.ReportAllocs()
			for b.Loop() {
				c.h.ServeHTTP(w, req)
			}
		})
	}
}
