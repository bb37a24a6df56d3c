// Package app wires the webhook service: webhook endpoints, the delivery
// schedule fed by verification and reporting events, and the dispatcher
// sending from it.
package app

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/kycfield/kyc/pkg/config"
	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/keyring"
	"github.com/kycfield/kyc/pkg/kitserver"
	"github.com/kycfield/kyc/pkg/platform"
	"github.com/kycfield/kyc/services/webhook/internal/dispatch"
	"github.com/kycfield/kyc/services/webhook/internal/events"
	"github.com/kycfield/kyc/services/webhook/internal/httpapi"
	"github.com/kycfield/kyc/services/webhook/internal/postgres"
	"github.com/kycfield/kyc/services/webhook/internal/webhook"
	"github.com/kycfield/kyc/services/webhook/migrations"
)

// Service describes the webhook service to launchers.
var Service = platform.Service{Name: name, Port: 8086, Database: "kyc_webhook", Topics: topics,
	Events: events.Contract(), Run: platform.Runner(Run)}

var topics = []string{event.TopicWebhook, event.TopicVerification, event.TopicReporting, event.TopicOrgAudit}

// name is also what Run logs under (Run cannot read Service: Service
// refers to Run).
const name = "webhook"

// Config is read from the environment; HTTP_ADDR and DATABASE_URL default
// to Service's port and database.
type Config struct {
	config.Common
	HTTPAddr    string `env:"HTTP_ADDR"`
	DatabaseURL string `env:"DATABASE_URL"`
	// PublicURL is the gateway as clients reach it: reportUrl is under it.
	PublicURL string `env:"PUBLIC_URL" envDefault:"http://127.0.0.1:8080"`
	// SecretKeys seal the endpoints' signing secrets at rest
	// ("id:base64-32-bytes,..."); SecretActiveKey seals new ones.
	SecretKeys      string `env:"WEBHOOK_SECRET_KEYS" envDefault:"local1:pigStF+HzcWvUb79xmSTAVujaEmOnedY/rZ/g0BdLCI=" secret:"true"`
	SecretActiveKey string `env:"WEBHOOK_SECRET_ACTIVE_KEY" envDefault:"local1"`
	// AllowPrivate lets sandbox endpoints point at loopback and private
	// addresses: on for make run and tests (receivers on 127.0.0.1), off
	// in production, where it would open the internal network to clients.
	// Live endpoints are held to public addresses whatever it says.
	AllowPrivate bool `env:"WEBHOOK_ALLOW_PRIVATE" envDefault:"false"`
	// Schedule is the delay before each attempt (tests shorten it).
	Schedule     string        `env:"WEBHOOK_RETRY_SCHEDULE" envDefault:"0s,5s,5m,30m,2h,5h,10h,10h"`
	DisableAfter time.Duration `env:"WEBHOOK_DISABLE_AFTER" envDefault:"120h"`
	Timeout      time.Duration `env:"WEBHOOK_TIMEOUT" envDefault:"15s"`
	Workers      int           `env:"WEBHOOK_WORKERS" envDefault:"128"`
	PerEndpoint  int           `env:"WEBHOOK_PER_ENDPOINT" envDefault:"4"`
	Poll         time.Duration `env:"WEBHOOK_POLL" envDefault:"250ms"`
	// Retention is how long the log keeps deliveries that ended.
	Retention time.Duration `env:"WEBHOOK_RETENTION" envDefault:"720h"`
}

// Run serves until ctx ends. onListen (optional) receives the bound address.
func Run(ctx context.Context, cfg Config, log *slog.Logger, onListen func(string)) error {
	keys, err := keyring.Parse(cfg.SecretKeys, cfg.SecretActiveKey)
	if err != nil {
		return err
	}
	sched, err := webhook.ParseSchedule(cfg.Schedule)
	if err != nil {
		return err
	}
	if cfg.Workers < 1 || cfg.PerEndpoint < 1 {
		return fmt.Errorf("webhook: WEBHOOK_WORKERS and WEBHOOK_PER_ENDPOINT must be at least 1")
	}
	opts := platform.Options{Name: name, Common: cfg.Common, DatabaseURL: cfg.DatabaseURL, Migrations: migrations.Set(),
		Topics: topics, MaxConns: 16}
	return platform.Run(ctx, log, opts, cfg.HTTPAddr, onListen, func(ctx context.Context, base *platform.Base) error {
		store := postgres.New(base.DB, keys, base.Bus.Topic(event.TopicWebhook), events.Disabled)
		store.AuditOn(base.Bus.Topic(event.TopicOrgAudit))
		policy := webhook.URLPolicy{SandboxPrivate: cfg.AllowPrivate, Resolver: net.DefaultResolver}
		svc := webhook.NewService(store, policy, time.Now)
		instr := kitserver.NewInstrumenter(log, base.Tel.Meter(name))
		eps := httpapi.MakeEndpoints(svc, instr)
		httpapi.Register(base.Mux, eps, base.Protect, log)
		// The events API reads the messages the consumer stores; its
		// cursors are sealed with the secrets' keyring (bound to the tenant
		// and filters, so a tampered or foreign cursor is refused).
		evs := webhook.NewEvents(store, keys, time.Now)
		httpapi.RegisterEvents(base.Mux, httpapi.MakeEventEndpoints(evs, instr), base.Protect, log)
		// Batches: one commit per batch of waiting events keeps the schedule
		// fed at hundreds of events a second (BENCHMARKS.md section 6).
		base.Subscribe(events.Subscriptions(store.Within, cfg.PublicURL)...)
		client := dispatch.NewClient(policy, cfg.Timeout)
		client.Transport = base.Tel.Transport(client.Transport)
		d := dispatch.New(dispatch.Config{Workers: cfg.Workers, PerEndpoint: cfg.PerEndpoint, Schedule: sched,
			DisableAfter: cfg.DisableAfter, Poll: cfg.Poll}, store, base.DB, client, log).
			WithTelemetry(base.Tel.Tracers, base.Tel.Meter(name))
		base.AddWorker(d.Run)
		base.AddWorker(d.Prune(cfg.Retention))
		return nil
	})
}
