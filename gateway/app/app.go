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
	"github.com/kycfield/kyc/gateway/internal/admit"
	"github.com/kycfield/kyc/gateway/internal/agentapp"
	"github.com/kycfield/kyc/gateway/internal/dashboard"
	"github.com/kycfield/kyc/gateway/internal/edge"
	"github.com/kycfield/kyc/gateway/internal/idempotency"
	"github.com/kycfield/kyc/gateway/internal/keys"
	"github.com/kycfield/kyc/gateway/internal/opsapp"
	"github.com/kycfield/kyc/gateway/internal/quota"
	"github.com/kycfield/kyc/gateway/internal/redisguard"
	"github.com/kycfield/kyc/gateway/internal/refusal"
	"github.com/kycfield/kyc/gateway/internal/routes"
	"github.com/kycfield/kyc/gateway/internal/usage"
	"github.com/kycfield/kyc/gateway/internal/webapp/shared"
	"github.com/kycfield/kyc/pkg/config"
	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/health"
	"github.com/kycfield/kyc/pkg/kafkabus"
	"github.com/kycfield/kyc/pkg/platform"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/pkg/server"
	"github.com/kycfield/kyc/pkg/telemetry"
)

// Service describes the gateway to launchers.
var Service = platform.Service{Name: name, Port: 8080, Topics: topics, Events: contract(), Run: platform.Runner(Run)}

// name is also what Run logs and meters under (Run cannot read Service:
// Service refers to Run).
const name = "gateway"

var topics = []string{event.TopicAuth, event.TopicGatewayUsage, event.TopicOrgAudit}

// Config is read from the environment; HTTP_ADDR defaults to Service's
// port.
type Config struct {
	config.Common
	HTTPAddr  string `env:"HTTP_ADDR"`
	AdminAddr string `env:"ADMIN_ADDR" envDefault:"127.0.0.1:9080"`
	RedisURL  string `env:"REDIS_URL" envDefault:"redis://127.0.0.1:6379/0"`
	// RedisPrefix namespaces every gateway key in Redis.
	RedisPrefix string `env:"REDIS_KEY_PREFIX" envDefault:"kyc:gw:"`
	// Upstreams maps every service the route table names to its base URL:
	// "auth-billing=http://auth-billing:8080,customer=http://...". The
	// all-in-one launcher and the test harness fill it from the registry.
	Upstreams       map[string]string `env:"UPSTREAMS" envKeyValSeparator:"="`
	MaxJSONBody     int64             `env:"MAX_JSON_BODY" envDefault:"1048576"`
	MaxUploadBody   int64             `env:"MAX_UPLOAD_BODY" envDefault:"11534336"`
	KeyCacheTTL     time.Duration     `env:"KEY_CACHE_TTL" envDefault:"30s"`
	KeySharedTTL    time.Duration     `env:"KEY_SHARED_CACHE_TTL" envDefault:"5m"`
	IdempotencyTTL  time.Duration     `env:"IDEMPOTENCY_TTL" envDefault:"24h"`
	UsageInterval   time.Duration     `env:"USAGE_REPORT_INTERVAL" envDefault:"10s"`
	UpstreamTimeout time.Duration     `env:"UPSTREAM_TIMEOUT" envDefault:"30s"`
	TrustedHops     int               `env:"TRUSTED_PROXY_HOPS" envDefault:"0"`
	// Admission control of the lender API (/api/v1 with an API key): at
	// most APIMaxInFlight requests in flight in this process (0: no
	// bound), at most APIOrgMaxInFlight of them for one organization (0:
	// three quarters), each waiting at most APIAdmitWait for a slot before
	// it is answered 503 SERVICE_OVERLOADED with Retry-After. The default
	// comes from BENCHMARKS §18t.
	APIMaxInFlight    int           `env:"API_MAX_IN_FLIGHT" envDefault:"32"`
	APIOrgMaxInFlight int           `env:"API_ORG_MAX_IN_FLIGHT" envDefault:"0"`
	APIAdmitWait      time.Duration `env:"API_ADMIT_WAIT" envDefault:"250ms"`
}

// Run serves until ctx ends. onListen (optional) receives the bound address.
func Run(ctx context.Context, cfg Config, log *slog.Logger, onListen func(string)) error {
	tel, err := telemetry.New(ctx, name)
	if err != nil {
		return err
	}
	defer func() { _ = tel.Shutdown(context.Background()) }()
	meter := tel.Meter(name)
	signer, err := principal.NewSigner(cfg.PrincipalSecrets, cfg.PrincipalTTL)
	if err != nil {
		return err
	}
	ropt, err := redis.ParseURL(cfg.RedisURL)
	if err != nil {
		return fmt.Errorf("gateway: REDIS_URL: %w", err)
	}
	ropt.MaxRetries = 1
	// Every Redis call gets one 500 ms budget, and once one has failed the
	// others fail at once until a background probe sees Redis answer
	// (redisguard): a Redis stall costs one request one timeout, never one
	// per Redis call it makes, and no later request any.
	rdb := redisguard.NewClient(ropt, redisguard.Options{}, log, meter)
	defer rdb.Close()

	bus := kafkabus.Config{Brokers: cfg.KafkaBrokers, TopicPrefix: cfg.KafkaTopicPrefix, Partitions: cfg.KafkaPartitions, Replication: cfg.KafkaReplication, Log: log}
	authTopic, usageTopic, orgAuditTopic := bus.Topic(event.TopicAuth), bus.Topic(event.TopicGatewayUsage), bus.Topic(event.TopicOrgAudit)
	if err := kafkabus.EnsureTopics(ctx, bus, authTopic, usageTopic, orgAuditTopic); err != nil {
		return err
	}
	writer := kafkabus.NewWriter(bus)
	defer writer.Close()

	upstreams, err := parseUpstreams(cfg.Upstreams)
	if err != nil {
		return err
	}
	src := &keys.AuthBilling{BaseURL: upstreams[routes.AuthBilling].String(), Signer: signer, HTTP: &http.Client{Transport: tel.Transport(nil)}}
	resolver := keys.NewResolver(rdb, cfg.RedisPrefix, src, keys.Options{LocalTTL: cfg.KeyCacheTTL, SharedTTL: cfg.KeySharedTTL, NegativeTTL: 30 * time.Second}, log, meter)
	limiter := quota.New(rdb, cfg.RedisPrefix, log, meter)
	// Uncapped plans' counts still on their way reach Redis before the
	// client closes (deferred after it, so run before it).
	defer limiter.Drain(2 * time.Second)
	reporter := usage.New(writer, usageTopic, cfg.UsageInterval, log)
	opts := edge.Options{Upstreams: upstreams, MaxJSON: cfg.MaxJSONBody, MaxUpload: cfg.MaxUploadBody,
		TrustedHops: cfg.TrustedHops, OpenAPI: api.OpenAPI, Timeout: cfg.UpstreamTimeout, Sessions: src, Staff: src,
		Refusals: refusal.New(writer, orgAuditTopic, 2*time.Second, log),
		Admit:    admit.New(admit.Config{Limit: cfg.APIMaxInFlight, PerOrg: cfg.APIOrgMaxInFlight, Wait: cfg.APIAdmitWait, RetryAfter: time.Second}, meter),
		// Clients' traceparent is not trusted: every trace starts here.
		Instrument: func(h http.Handler) http.Handler { return tel.Server(h, telemetry.ServerOptions{}) }}
	// The client span carries the trace to the services. With tracing off
	// there is no trace to carry (the gateway starts every trace, and its
	// spans are no-ops), yet otelhttp's transport would still clone each
	// proxied request and compute its attributes: skip it then.
	if tel.Tracing() {
		opts.Transport = tel.Transport
	}
	gw := edge.New(opts, log, signer, resolver, limiter, idempotency.New(rdb, cfg.RedisPrefix, cfg.IdempotencyTTL, 2*cfg.UpstreamTimeout), reporter)

	// Every instance hears every key and plan change, from the moment it
	// starts, and applies it to its caches.
	invalidations, err := kafkabus.NewBroadcast(ctx, bus, authTopic, log)
	if err != nil {
		return err
	}
	hl := health.New()
	hl.SetLog(log)
	handler := gw.Handler(func(mux *http.ServeMux) {
		hl.Register(mux)
		agentapp.Register(mux)
		dashboard.Register(mux)
		opsapp.Register(mux)
		shared.Register(mux) // dom.js and base.css, for the dashboard and the console
	})
	admin := http.NewServeMux()
	hl.Register(admin)
	admin.Handle("GET /metrics", tel.MetricsHandler())
	adminSrv := &http.Server{Addr: cfg.AdminAddr, Handler: admin, ReadHeaderTimeout: 5 * time.Second}

	return server.Run(ctx, log, hl, server.HTTP{Addr: cfg.HTTPAddr, Handler: handler, OnListen: onListen, Linger: cfg.ShutdownDelay}, cfg.ShutdownTimeout,
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

// parseUpstreams checks that every service the route table names has a
// usable base URL, so a missing one fails at start, not on a request.
func parseUpstreams(raw map[string]string) (map[string]*url.URL, error) {
	out := map[string]*url.URL{}
	for _, r := range routes.Table {
		if r.Service == routes.Gateway || out[r.Service] != nil {
			continue
		}
		u, err := url.Parse(raw[r.Service])
		if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
			return nil, fmt.Errorf("gateway: UPSTREAMS needs an http(s) base URL for %s, got %q", r.Service, raw[r.Service])
		}
		out[r.Service] = u
	}
	return out, nil
}
