package platform

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"maps"
	"strings"
	"testing"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/pkg/kafkabus"
	"github.com/kycfield/kyc/pkg/logging"
)

// When the broker cannot be asked, each consumer keeps its last figure
// (and one never measured shows none rather than a false 0); the log says
// so once however many scrapes fail, and once when it is measured again.
func TestConsumerLagFallsBackToTheLastFigure(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	meter := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)).Meter("test")
	var logs bytes.Buffer
	down := errors.New("broker down")
	answers := map[string][]error{"seen": {nil, down, down, nil}, "never": {down, down, down, nil}}
	backlog := func(_ context.Context, group string, _ []string, _ map[kafkabus.TopicPartition]int64) (int64, error) {
		err := answers[group][0]
		answers[group] = answers[group][1:]
		return 5, err
	}
	l, err := newConsumerLag(meter, slog.New(slog.NewTextHandler(&logs, nil)), backlog)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []string{"seen", "never"} {
		l.add(g, g, []string{"topic"}, inbox.New(g, nil, nil, logging.Discard(), nil))
	}
	for i, want := range []map[string]int64{{"seen": 5}, {"seen": 5}, {"seen": 5}, {"seen": 5, "never": 5}} {
		if got := collect(t, reader); !maps.Equal(got, want) {
			t.Fatalf("scrape %d: %v, want %v", i+1, got, want)
		}
	}
	if n := strings.Count(logs.String(), "level=WARN"); n != 1 {
		t.Errorf("%d warnings, want 1:\n%s", n, logs.String())
	}
	if !strings.Contains(logs.String(), "measured at the broker again") {
		t.Errorf("no line on recovery:\n%s", logs.String())
	}
}

// collect scrapes reader and returns kyc_consumer_lag by consumer.
func collect(t *testing.T, reader *sdkmetric.ManualReader) map[string]int64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if g, ok := m.Data.(metricdata.Gauge[int64]); ok && m.Name == MetricConsumerLag {
				for _, p := range g.DataPoints {
					c, _ := p.Attributes.Value("consumer")
					out[c.AsString()] = p.Value
				}
			}
		}
	}
	return out
}
