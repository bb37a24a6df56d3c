package platform

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/segmentio/kafka-go"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/pkg/kafkabus"
)

// MetricConsumerLag is the consumer-lag gauge (deploy/grafana queries it).
const MetricConsumerLag = "kyc_consumer_lag"

// lagTimeout bounds one scrape's questions to the broker: a broker that
// does not answer must not hold /metrics up (Prometheus gives a scrape
// 10 s by default, and the other gauges are in the same answer).
const lagTimeout = time.Second

// backlogFunc measures a group's backlog (kafkabus.Backlog, bound to a
// client).
type backlogFunc func(ctx context.Context, group string, topics []string, next map[kafkabus.TopicPartition]int64) (int64, error)

// lagSource is one consumer of the process and the last backlog measured
// for it.
type lagSource struct {
	group  string   // the full group id
	topics []string // full names
	c      *inbox.Consumer
	last   int64
	known  bool
}

// consumerLag reports, at every scrape, how many messages of each of the
// process's consumers' partitions are not applied yet, asked of the
// broker then (kafkabus.Backlog): nothing asks it when nobody scrapes.
// When the broker does not answer within lagTimeout, each consumer shows
// its last figure (none before the first), and the log says so once.
type consumerLag struct {
	backlog backlogFunc
	log     *slog.Logger

	mu      sync.Mutex            // serializes scrapes; guards the fields below
	sources map[string]*lagSource // group (without the topic prefix) -> consumer
	failing bool                  // the last scrape could not measure some group
}

func newConsumerLag(meter metric.Meter, log *slog.Logger, backlog backlogFunc) (*consumerLag, error) {
	l := &consumerLag{backlog: backlog, log: log, sources: map[string]*lagSource{}}
	_, err := meter.Int64ObservableGauge(MetricConsumerLag,
		metric.WithDescription("Messages of the consumer group's partitions it has not applied yet, at scrape time, by consumer"),
		metric.WithInt64Callback(l.observe))
	return l, err
}

// brokerBacklog measures backlogs through client.
func brokerBacklog(client *kafka.Client) backlogFunc {
	return func(ctx context.Context, group string, topics []string, next map[kafkabus.TopicPartition]int64) (int64, error) {
		return kafkabus.Backlog(ctx, client, group, topics, next)
	}
}

func (l *consumerLag) add(short, group string, topics []string, c *inbox.Consumer) {
	l.mu.Lock()
	l.sources[short] = &lagSource{group: group, topics: topics, c: c}
	l.mu.Unlock()
}

// observe measures every consumer's backlog within lagTimeout and reports
// it, or the last figure for those it could not measure.
func (l *consumerLag) observe(ctx context.Context, o metric.Int64Observer) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, lagTimeout)
	defer cancel()
	var failed error
	for short, s := range l.sources {
		n, err := l.backlog(ctx, s.group, s.topics, s.c.Next())
		if err != nil {
			failed = err
			l.log.Debug("consumer lag not measured", "consumer", short, "err", err)
		} else {
			s.last, s.known = n, true
		}
		if s.known {
			o.Observe(s.last, metric.WithAttributes(attribute.String("consumer", short)))
		}
	}
	l.noteOutcome(failed)
	return nil
}

// noteOutcome logs the first scrape that could not measure, and the first
// that could again: one line each, however often Prometheus scrapes.
func (l *consumerLag) noteOutcome(failed error) {
	switch {
	case failed != nil && !l.failing:
		l.log.Warn("consumer lag not measured at the broker; kyc_consumer_lag shows the last figures until it is", "err", failed)
	case failed == nil && l.failing:
		l.log.Info("consumer lag measured at the broker again")
	}
	l.failing = failed != nil
}
