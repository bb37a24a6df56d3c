// Package platform boots what every service process has: logger,
// telemetry, its PostgreSQL database with migrations (its own plus the
// outbox and inbox tables), the Kafka writer and outbox relay, the
// principal verifier, health probes and /metrics. A service's app package
// adds its own parts on top and calls Serve; the wiring stays explicit.
package platform

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/segmentio/kafka-go"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/config"
	"github.com/kycfield/kyc/pkg/envelope"
	"github.com/kycfield/kyc/pkg/health"
	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/pkg/kafkabus"
	"github.com/kycfield/kyc/pkg/outbox"
	"github.com/kycfield/kyc/pkg/pgdb"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/pkg/requestid"
	"github.com/kycfield/kyc/pkg/server"
	"github.com/kycfield/kyc/pkg/telemetry"
)

// Options describe the service being booted.
type Options struct {
	Name        string
	Common      config.Common
	DatabaseURL string
	MaxConns    int32
	// Migrations are the service's own (optional); outbox and inbox are
	// always added, and Kit's (e.g. pending.Migration) when given.
	Migrations pgdb.Migration
	Kit        []pgdb.Migration
	// Topics (short names) the service publishes to or consumes from; they
	// are created when missing.
	Topics []string
}

// Base is a booted service process.
type Base struct {
	Name    string
	Log     *slog.Logger
	Tel     *telemetry.Telemetry
	DB      *pgxpool.Pool
	Bus     kafkabus.Config
	Writer  *kafka.Writer
	Signer  *principal.Signer
	Health  *health.Health
	Mux     *http.ServeMux
	common  config.Common
	workers []server.Worker
	closers []func()
	lag     *consumerLag
}

// Run boots the service, lets setup add its own parts (routes, consumers,
// stores) to the Base, and serves on addr until ctx ends. Whatever Boot
// and setup opened is closed on every path, failures included.
func Run(ctx context.Context, log *slog.Logger, o Options, addr string, onListen func(string), setup func(ctx context.Context, b *Base) error) error {
	if migrateOnly(ctx) {
		if err := migrate(ctx, o); err != nil {
			return err
		}
		log.Info("migrated; exiting (migrate-only)")
		return nil
	}
	b, err := boot(ctx, log, o)
	if err != nil {
		return err
	}
	if err := setup(ctx, b); err != nil {
		b.Close()
		return fmt.Errorf("%s: %w", o.Name, err)
	}
	return b.Serve(ctx, addr, onListen)
}

// boot connects and migrates everything a service needs.
func boot(ctx context.Context, log *slog.Logger, o Options) (*Base, error) {
	b := &Base{Name: o.Name, Log: log, Health: health.New(), Mux: http.NewServeMux(), common: o.Common}
	ok := false
	defer func() {
		if !ok {
			b.Close()
		}
	}()
	var err error
	if b.Tel, err = telemetry.New(ctx, o.Name); err != nil {
		return nil, fmt.Errorf("telemetry: %w", err)
	}
	b.closers = append(b.closers, func() { _ = b.Tel.Shutdown(context.Background()) })
	if b.Signer, err = principal.NewSigner(o.Common.PrincipalSecrets, o.Common.PrincipalTTL); err != nil {
		return nil, err
	}
	if err := migrate(ctx, o); err != nil {
		return nil, err
	}
	if b.DB, err = pgdb.Open(ctx, o.DatabaseURL, o.MaxConns); err != nil {
		return nil, err
	}
	b.closers = append(b.closers, b.DB.Close)
	b.Bus = kafkabus.Config{Brokers: o.Common.KafkaBrokers, TopicPrefix: o.Common.KafkaTopicPrefix,
		Partitions: o.Common.KafkaPartitions, Replication: o.Common.KafkaReplication, Log: log}
	if len(o.Topics) > 0 {
		full := make([]string, len(o.Topics))
		for i, t := range o.Topics {
			full[i] = b.Bus.Topic(t)
		}
		if err := kafkabus.EnsureTopics(ctx, b.Bus, full...); err != nil {
			return nil, err
		}
	}
	b.Writer = kafkabus.NewWriter(b.Bus)
	b.closers = append(b.closers, func() { _ = b.Writer.Close() })
	b.AddWorker(outbox.NewRelay(b.DB, b.Writer, log).WithTracing(b.Tel.Tracers).Run)
	meter := b.Tel.Meter("github.com/kycfield/kyc/pkg/platform")
	if err := outbox.RegisterMetrics(meter, b.DB); err != nil {
		return nil, fmt.Errorf("telemetry: %w", err)
	}
	// The lag gauge asks the broker through kafka-go's shared transport,
	// the writer's: its connections and cached metadata are there already,
	// so a scrape adds a few requests and nothing runs between scrapes.
	lagClient := &kafka.Client{Addr: kafka.TCP(b.Bus.Brokers...)}
	if b.lag, err = newConsumerLag(meter, log, brokerBacklog(lagClient)); err != nil {
		return nil, fmt.Errorf("telemetry: %w", err)
	}
	b.Health.Add("postgres", func(ctx context.Context) error { return b.DB.Ping(ctx) })
	b.Health.Add("kafka", func(ctx context.Context) error { return kafkabus.Ping(ctx, b.Bus.Brokers) })
	b.Health.SetLog(log)
	b.Health.Register(b.Mux)
	b.Mux.Handle("GET /metrics", b.Tel.MetricsHandler())
	ok = true
	return b, nil
}

// migrate creates the service's database when missing and applies its
// migrations, the kit's (outbox, inbox, o.Kit) included.
func migrate(ctx context.Context, o Options) error {
	mctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	return pgdb.Migrate(mctx, o.DatabaseURL, append([]pgdb.Migration{o.Migrations, outbox.Migration(), inbox.Migration()}, o.Kit...)...)
}

// AddWorker runs w beside the HTTP server for the life of the process.
func (b *Base) AddWorker(w server.Worker) { b.workers = append(b.workers, w) }

// AddCloser runs f when the process stops (after workers have stopped).
func (b *Base) AddCloser(f func()) { b.closers = append(b.closers, f) }

// Subscribe runs an idempotent consumer for each subscription. The group
// id carries the topic prefix, so that deployments (and tests) sharing a
// broker never share a group.
func (b *Base) Subscribe(subs ...inbox.Subscription) {
	for _, s := range subs {
		b.consume(s)
	}
}

func (b *Base) consume(s inbox.Subscription) {
	group := s.Group
	full := make([]string, len(s.Topics))
	for i, t := range s.Topics {
		full[i] = b.Bus.Topic(t)
	}
	short := group
	group = b.Bus.TopicPrefix + group
	r := kafkabus.NewGroupReader(b.Bus, group, full...)
	b.closers = append(b.closers, func() { _ = r.Close() })
	c := inbox.New(group, r, b.DB, b.Log, inbox.Handle(s.Routes...)).Only(s.Types()...).Skip(s.Skip).WithBatch(max(s.Batch, 1)).
		WithBatchHandler(s.ApplyBatch).WithTracing(b.Tel.Tracers)
	b.lag.add(short, group, full, c)
	b.AddWorker(c.Run)
}

// Protect requires a gateway-signed principal of one of kinds on h.
func (b *Base) Protect(h http.Handler, kinds ...principal.Kind) http.Handler {
	return principal.Require(b.Signer, b.Log, kinds...)(h)
}

// Serve runs the HTTP server and workers until ctx ends, then closes
// everything in reverse order.
func (b *Base) Serve(ctx context.Context, addr string, onListen func(string)) error {
	defer b.Close()
	// Server spans continue the gateway's trace; the request id sits
	// outside so that it is in the context the handler logs with.
	h := server.HTTP{Addr: addr, Handler: requestid.Middleware(b.Tel.Server(b.Mux, telemetry.ServerOptions{TrustParent: true})), OnListen: onListen,
		Linger: b.common.ShutdownDelay}
	return server.Run(ctx, b.Log, b.Health, h, b.common.ShutdownTimeout, b.workers...)
}

// Close releases resources; safe to call twice.
func (b *Base) Close() {
	for i := len(b.closers) - 1; i >= 0; i-- {
		b.closers[i]()
	}
	b.closers = nil
}

// NotImplemented mounts patterns (net/http patterns) on mux answering 501
// NOT_IMPLEMENTED behind protect, so that only a caller with a valid
// API-key principal learns even that the route exists: it is owned here,
// and its behaviour arrives with the context's own issue.
func NotImplemented(mux *http.ServeMux, protect func(http.Handler, ...principal.Kind) http.Handler, log *slog.Logger, patterns ...string) {
	h := protect(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		envelope.Fail(r.Context(), w, log, apperr.New(apperr.KindNotImplemented, apperr.CodeNotImplemented,
			"This endpoint is not available yet"))
	}), principal.KindAPIKey)
	for _, p := range patterns {
		mux.Handle(p, h)
	}
}

// Finder asks the service at baseURL (its own address, not the gateway's)
// whether a resource is there for a tenant, as a service principal, each
// call traced and bounded by 5 s.
func (b *Base) Finder(baseURL string, path func(id string) string) principal.Finder {
	return principal.Finder{Client: principal.Client{BaseURL: baseURL, Signer: b.Signer,
		HTTP: &http.Client{Timeout: 5 * time.Second, Transport: b.Tel.Transport(nil)}}, Path: path}
}
