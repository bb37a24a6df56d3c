package app

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/kycfield/kyc/services/verification/internal/verification"
)

// MetricVerifications counts addresses reaching a final status, by
// environment (test: sandbox, live) and outcome (deploy/grafana queries it).
const MetricVerifications = "kyc_verifications_total"

func countOutcomes(svc *verification.Service, meter metric.Meter) error {
	c, err := meter.Int64Counter(MetricVerifications,
		metric.WithDescription("Address verifications finished, by environment (test is the sandbox) and outcome"))
	if err != nil {
		return err
	}
	svc.OnFinal(func(ctx context.Context, env, status string) {
		c.Add(ctx, 1, metric.WithAttributes(attribute.String("environment", env), attribute.String("outcome", status)))
	})
	return nil
}
