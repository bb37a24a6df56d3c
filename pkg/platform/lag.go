package platform

import (
	"context"
	"sync"

	"github.com/segmentio/kafka-go"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// MetricConsumerLag is the consumer-lag gauge (deploy/grafana queries it).
const MetricConsumerLag = "kyc_consumer_lag"

// consumerLag reports, at every scrape, how many messages each of the
// process's consumer groups has yet to read, as kafka-go last saw it.
type consumerLag struct {
	mu      sync.Mutex
	readers map[string]*kafka.Reader // group (without the topic prefix) -> reader
}

func newConsumerLag(meter metric.Meter) (*consumerLag, error) {
	l := &consumerLag{readers: map[string]*kafka.Reader{}}
	_, err := meter.Int64ObservableGauge(MetricConsumerLag,
		metric.WithDescription("Messages not yet read by the consumer group, by consumer"),
		metric.WithInt64Callback(func(_ context.Context, o metric.Int64Observer) error {
			l.mu.Lock()
			defer l.mu.Unlock()
			for group, r := range l.readers {
				o.Observe(r.Stats().Lag, metric.WithAttributes(attribute.String("consumer", group)))
			}
			return nil
		}))
	return l, err
}

func (l *consumerLag) add(group string, r *kafka.Reader) {
	l.mu.Lock()
	l.readers[group] = r
	l.mu.Unlock()
}
