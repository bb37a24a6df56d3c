package harness

import (
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// GaugeSum reads a Prometheus exposition text (a service's /metrics) and
// adds up every series of the gauge name, whatever its labels, returning
// the largest single series too: the backlog gauges (kyc_consumer_lag,
// kyc_outbox_backlog) have one series per consumer or outbox, and "nothing
// left anywhere" is their sum at 0. A gauge the text does not carry sums
// to 0.
func GaugeSum(text, name string) (sum, largest float64, err error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(strings.NewReader(text))
	if err != nil {
		return 0, 0, err
	}
	f, ok := families[name]
	if !ok {
		return 0, 0, nil
	}
	for _, m := range f.GetMetric() {
		v := value(f.GetType(), m)
		sum += v
		largest = max(largest, v)
	}
	return sum, largest, nil
}

func value(t dto.MetricType, m *dto.Metric) float64 {
	if t == dto.MetricType_GAUGE {
		return m.GetGauge().GetValue()
	}
	return m.GetUntyped().GetValue()
}
