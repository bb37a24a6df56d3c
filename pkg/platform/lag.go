package platform

import (
	"context"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/kycfield/kyc/pkg/inbox"
)

// MetricConsumerLag is the consumer-lag gauge (deploy/grafana queries it).
const MetricConsumerLag = "kyc_consumer_lag"

// consumerLag reports, at every scrape, how many messages each of the
// process's consumers has yet to apply (inbox.Consumer.Lag).
type consumerLag struct {
	mu      sync.Mutex
	readers map[string]*inbox.Consumer // group (without the topic prefix) -> consumer
}

func newConsumerLag(meter metric.Meter) (*consumerLag, error) {
	l := &consumerLag{readers: map[string]*inbox.Consumer{}}
	_, err := meter.Int64ObservableGauge(MetricConsumerLag,
		metric.WithDescription("Messages not yet read by the consumer group, by consumer"),
		metric.WithInt64Callback(func(_ context.Context, o metric.Int64Observer) error {
			l.mu.Lock()
			defer l.mu.Unlock()
			for group, r := range l.readers {
				o.Observe(r.Lag(), metric.WithAttributes(attribute.String("consumer", group)))
			}
			return nil
		}))
	return l, err
}

func (l *consumerLag) add(group string, r *inbox.Consumer) {
	l.mu.Lock()
	l.readers[group] = r
	l.mu.Unlock()
}
