package harness

import (
	"maps"
	"testing"
)

// An operator reads the backlog as a sum ("anything left anywhere?") and,
// when it is not zero, by consumer ("which one is behind?").
func TestGaugeSumAndSeries(t *testing.T) {
	const text = `# TYPE kyc_consumer_lag gauge
kyc_consumer_lag{consumer="customers"} 0
kyc_consumer_lag{consumer="reports",otel_scope_name="github.com/kycfield/kyc/pkg/platform",otel_scope_version=""} 3555
kyc_consumer_lag{consumer="webhooks"} 12
# TYPE kyc_outbox_backlog gauge
kyc_outbox_backlog 7
`
	cases := []struct {
		name         string
		gauge        string
		sum, largest float64
		series       map[string]float64
	}{
		{"one series per consumer", "kyc_consumer_lag", 3567, 3555, map[string]float64{"customers": 0, "reports": 3555, "webhooks": 12}},
		{"a gauge without labels", "kyc_outbox_backlog", 7, 7, map[string]float64{"": 7}},
		{"a gauge the text does not carry", "kyc_missing", 0, 0, map[string]float64{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sum, largest, err := GaugeSum(text, c.gauge)
			if err != nil || sum != c.sum || largest != c.largest {
				t.Fatalf("GaugeSum = %v, %v, %v; want %v, %v", sum, largest, err, c.sum, c.largest)
			}
			series, err := GaugeSeries(text, c.gauge)
			if err != nil || !maps.Equal(series, c.series) {
				t.Fatalf("GaugeSeries = %v, %v; want %v", series, err, c.series)
			}
		})
	}
	if _, err := GaugeSeries("not an exposition {", "x"); err == nil {
		t.Fatal("GaugeSeries accepted a text that is not Prometheus exposition")
	}
}
