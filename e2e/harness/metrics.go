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
	f, err := family(text, name)
	for _, m := range f.GetMetric() {
		v := value(f.GetType(), m)
		sum += v
		largest = max(largest, v)
	}
	return sum, largest, err
}

// family parses text and returns the metric family name (nil, which has
// no metrics, when the text does not carry it).
func family(text, name string) (*dto.MetricFamily, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(strings.NewReader(text))
	if err != nil {
		return nil, err
	}
	return families[name], nil
}

// GaugeSeries reads the series of the gauge name from an exposition text,
// each keyed by its own labels' values joined with "/" (a consumer's name,
// for kyc_consumer_lag; the exporter's otel_scope_* labels left out): the
// figure an operator looks up once the sum says something is left.
func GaugeSeries(text, name string) (map[string]float64, error) {
	f, err := family(text, name)
	if err != nil {
		return nil, err
	}
	series := map[string]float64{}
	for _, m := range f.GetMetric() {
		labels := make([]string, 0, len(m.GetLabel()))
		for _, l := range m.GetLabel() {
			if !strings.HasPrefix(l.GetName(), "otel_scope_") {
				labels = append(labels, l.GetValue())
			}
		}
		series[strings.Join(labels, "/")] += value(f.GetType(), m)
	}
	return series, nil
}

func value(t dto.MetricType, m *dto.Metric) float64 {
	if t == dto.MetricType_GAUGE {
		return m.GetGauge().GetValue()
	}
	return m.GetUntyped().GetValue()
}
