// Package app wires the gateway: the public edge that authenticates API
// keys, counts quotas, enforces scopes, plans, body limits and
// idempotency, and forwards to the owning service with a signed principal.
package app

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/segmentio/kafka-go"

	"github.com/kycfield/kyc/api"
	"github.com/kycfield/kyc/gateway/internal/edge"
	"github.com/kycfield/kyc/gateway/internal/idempotency"
	"github.com/kycfield/kyc/gateway/internal/keys"
	"github.com/kycfield/kyc/gateway/internal/quota"
	"github.com/kycfield/kyc/gateway/internal/routes"
	"github.com/kycfield/kyc/gateway/internal/usage"
	"github.com/kycfield/kyc/pkg/config"
	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/health"
	"github.com/kycfield/kyc/pkg/kafkabus"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/pkg/server"
	"github.com/kycfield/kyc/pkg/telemetry"
)

// Config is read from the environment.
type Config struct {
	config.Common
	HTTPAddr  string `env:"HTTP_ADDR" envDefault:"127.0.0.1:8080"`
	AdminAddr string `env:"ADMIN_ADDR" envDefault:"127.0.0.1:9080"`
	RedisURL  string `env:"REDIS_URL" envDefault:"redis://127.0.0.1:6379/0"`
	// RedisPrefix namespaces every gateway key in Redis.
	RedisPrefix     string        `env:"REDIS_KEY_PREFIX" envDefault:"kyc:gw:"`
	AuthBillingURL  string        `env:"AUTH_BILLING_URL" envDefault:"http://127.0.0.1:8081"`
	CustomerURL     string        `env:"CUSTOMER_URL" envDefault:"http://127.0.0.1:8082"`
	DocumentURL     string        `env:"DOCUMENT_URL" envDefault:"http://127.0.0.1:8083"`
	VerificationURL string        `env:"VERIFICATION_URL" envDefault:"http://127.0.0.1:8084"`
	ReportingURL    string        `env:"REPORTING_URL" envDefault:"http://127.0.0.1:8085"`
	WebhookURL      string        `env:"WEBHOOK_URL" envDefault:"http://127.0.0.1:8086"`
	MaxJSONBody     int64         `env:"MAX_JSON_BODY" envDefault:"1048576"`
	MaxUploadBody   int64         `env:"MAX_UPLOAD_BODY" envDefault:"11534336"`
	KeyCacheTTL     time.Duration `env:"KEY_CACHE_TTL" envDefault:"30s"`
	KeySharedTTL    time.Duration `env:"KEY_SHARED_CACHE_TTL" envDefault:"5m"`
	IdempotencyTTL  time.Duration `env:"IDEMPOTENCY_TTL" envDefault:"24h"`
	UsageInterval   time.Duration `env:"USAGE_REPORT_INTERVAL" envDefault:"10s"`
	UpstreamTimeout time.Duration `env:"UPSTREAM_TIMEOUT" envDefault:"30s"`
	TrustedHops     int           `env:"TRUSTED_PROXY_HOPS" envDefault:"0"`
}

// Run serves until ctx ends. onListen (optional) receives the bound address.
func Run(ctx context.Context, cfg Config, log *slog.Logger, onListen func(string)) error {
	tel, err := telemetry.New(ctx, "gateway")
	if err != nil {
		return err
	}
	defer func() { _ = tel.Shutdown(context.Background()) }()
	meter := tel.Meter("gateway")
	signer, err := principal.NewSigner(cfg.PrincipalSecrets, cfg.PrincipalTTL)
	if err != nil {
		return err
	}
	ropt, err := redis.ParseURL(cfg.RedisURL)
	if err != nil {
		return fmt.Errorf("gateway: REDIS_URL: %w", err)
	}
	ropt.DialTimeout, ropt.ReadTimeout, ropt.WriteTimeout = 500*time.Millisecond, 500*time.Millisecond, 500*time.Millisecond
	ropt.MaxRetries = 1
	rdb := redis.NewClient(ropt)
	defer rdb.Close()

	bus := kafkabus.Config{Brokers: cfg.KafkaBrokers, TopicPrefix: cfg.KafkaTopicPrefix, Partitions: cfg.KafkaPartitions, Replication: cfg.KafkaReplication}
	authTopic, usageTopic := bus.Topic(event.TopicAuth), bus.Topic(event.TopicGatewayUsage)
	if err := kafkabus.EnsureTopics(ctx, bus, authTopic, usageTopic); err != nil {
		return err
	}
	writer := kafkabus.NewWriter(bus)
	defer writer.Close()

	upstreams := map[string]*url.URL{}
	for name, raw := range map[string]string{routes.AuthBilling: cfg.AuthBillingURL, routes.Customer: cfg.CustomerURL,
		routes.Document: cfg.DocumentURL, routes.Verification: cfg.VerificationURL, routes.Reporting: cfg.ReportingURL, routes.Webhook: cfg.WebhookURL} {
		u, err := url.Parse(raw)
		if err != nil || u.Host == "" {
			return fmt.Errorf("gateway: bad upstream URL for %s: %q", name, raw)
		}
		upstreams[name] = u
	}
	src := &keys.AuthBilling{BaseURL: cfg.AuthBillingURL, Signer: signer, HTTP: &http.Client{}}
	resolver := keys.NewResolver(rdb, cfg.RedisPrefix, src, keys.Options{LocalTTL: cfg.KeyCacheTTL, SharedTTL: cfg.KeySharedTTL, NegativeTTL: 30 * time.Second}, log, meter)
	limiter := quota.New(rdb, cfg.RedisPrefix, log, meter)
	reporter := usage.New(writer, usageTopic, cfg.UsageInterval, log)
	gw := edge.New(edge.Options{Upstreams: upstreams, MaxJSON: cfg.MaxJSONBody, MaxUpload: cfg.MaxUploadBody,
		TrustedHops: cfg.TrustedHops, OpenAPI: api.OpenAPI, Timeout: cfg.UpstreamTimeout},
		log, signer, resolver, limiter, idempotency.New(rdb, cfg.RedisPrefix, cfg.IdempotencyTTL, 2*cfg.UpstreamTimeout), reporter, meter)

	// Every instance hears every key and plan change, from the moment it
	// starts, and applies it to its caches.
	invalidations, err := kafkabus.NewBroadcast(ctx, bus, authTopic, log)
	if err != nil {
		return err
	}
	hl := health.New()
	handler := gw.Handler(func(mux *http.ServeMux) { hl.Register(mux) })
	admin := http.NewServeMux()
	hl.Register(admin)
	admin.Handle("GET /metrics", tel.MetricsHandler())
	adminSrv := &http.Server{Addr: cfg.AdminAddr, Handler: admin, ReadHeaderTimeout: 5 * time.Second}

	return server.Run(ctx, log, hl, server.HTTP{Addr: cfg.HTTPAddr, Handler: handler, OnListen: onListen}, cfg.ShutdownTimeout,
		func(ctx context.Context) error {
			invalidations.Run(ctx, func(m kafka.Message) {
				if e, err := event.Decode(m.Value); err == nil {
					resolver.Apply(ctx, e)
				}
			})
			return nil
		},
		reporter.Run,
		func(ctx context.Context) error {
			go func() { <-ctx.Done(); _ = adminSrv.Close() }()
			if err := adminSrv.ListenAndServe(); err != nil && err != http.ErrServerClosed {
				log.Warn("admin listener failed; metrics unavailable", "addr", cfg.AdminAddr, "err", err)
			}
			return nil
		},
	)
}
