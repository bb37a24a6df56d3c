package outbox

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"go.opentelemetry.io/otel/metric"
)

// Metric names (the dashboard in deploy/grafana queries them).
const (
	MetricBacklog   = "kyc_outbox_backlog"
	MetricOldestAge = "kyc_outbox_oldest_age_seconds"
)

// RegisterMetrics reports, at every scrape, how many events wait in the
// outbox and how long the oldest has waited: a growing age means the
// relay is stuck (Kafka down, no relay holding the lock). The query reads
// only the partial index of unpublished rows, which the relay keeps short.
func RegisterMetrics(meter metric.Meter, pool *pgxpool.Pool) error {
	backlog, err := meter.Int64ObservableGauge(MetricBacklog, metric.WithDescription("Outbox events not yet published"))
	if err != nil {
		return err
	}
	age, err := meter.Float64ObservableGauge(MetricOldestAge, metric.WithUnit("s"),
		metric.WithDescription("Age of the oldest unpublished outbox event (0 when none)"))
	if err != nil {
		return err
	}
	_, err = meter.RegisterCallback(func(ctx context.Context, o metric.Observer) error {
		qctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		var n int64
		var oldest float64
		err := pool.QueryRow(qctx, `SELECT count(*), coalesce(extract(epoch FROM now() - min(created_at)), 0)::float8
			FROM outbox WHERE published_at IS NULL`).Scan(&n, &oldest)
		if err != nil {
			return nil // no sample this scrape rather than a false zero
		}
		o.ObserveInt64(backlog, n)
		o.ObserveFloat64(age, oldest)
		return nil
	}, backlog, age)
	return err
}
