// Package app wires the customer service: customers, their addresses and
// documents, duplicates, PII protection, and the verification status read
// model.
package app

import (
	"context"
	"log/slog"
	"time"

	"github.com/kycfield/kyc/pkg/config"
	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/keyring"
	"github.com/kycfield/kyc/pkg/kitserver"
	"github.com/kycfield/kyc/pkg/platform"
	"github.com/kycfield/kyc/services/customer/internal/customer"
	"github.com/kycfield/kyc/services/customer/internal/events"
	"github.com/kycfield/kyc/services/customer/internal/httpapi"
	"github.com/kycfield/kyc/services/customer/internal/importer"
	"github.com/kycfield/kyc/services/customer/internal/postgres"
	"github.com/kycfield/kyc/services/customer/migrations"
)

// Service describes the customer service to launchers.
var Service = platform.Service{Name: name, Port: 8082, Database: "kyc_customer", Topics: topics,
	Events: events.Contract(), Run: platform.Runner(Run)}

// name is also what Run logs and meters under (Run cannot read Service:
// Service refers to Run).
const name = "customer"

var topics = []string{event.TopicCustomer, event.TopicVerification, event.TopicDocument, event.TopicReporting, event.TopicOrgAudit}

// Config is read from the environment; HTTP_ADDR and DATABASE_URL default
// to Service's port and database.
type Config struct {
	config.Common
	HTTPAddr    string `env:"HTTP_ADDR"`
	DatabaseURL string `env:"DATABASE_URL"`
	MaxConns    int32  `env:"DATABASE_MAX_CONNS" envDefault:"20"`
	// PIIKeys encrypt BVN and NIN at rest: "id:base64-32-bytes,..."; the
	// active one seals new values, all of them open old ones.
	PIIKeys      string `env:"PII_KEYS" envDefault:"local1:jSv7ih3Y8m8Zgui3cFjZHBJZGwcPPrL1k2W8ntQftE0=" secret:"true"`
	PIIActiveKey string `env:"PII_ACTIVE_KEY" envDefault:"local1"`
	// ImportPoll is how often the import worker looks for work without a
	// NOTIFY (one lost while its connection was replaced).
	ImportPoll time.Duration `env:"IMPORT_POLL" envDefault:"5s"`
}

// Run serves until ctx ends. onListen (optional) receives the bound address.
func Run(ctx context.Context, cfg Config, log *slog.Logger, onListen func(string)) error {
	keys, err := keyring.Parse(cfg.PIIKeys, cfg.PIIActiveKey)
	if err != nil {
		return err
	}
	opts := platform.Options{Name: name, Common: cfg.Common, DatabaseURL: cfg.DatabaseURL, MaxConns: cfg.MaxConns,
		Migrations: migrations.Set(), Topics: topics}
	return platform.Run(ctx, log, opts, cfg.HTTPAddr, onListen, func(_ context.Context, base *platform.Base) error {
		store := postgres.New(base.DB, keys, base.Bus.Topic(event.TopicCustomer), events.Of)
		store.AuditOn(base.Bus.Topic(event.TopicOrgAudit))
		svc := customer.NewService(store, time.Now).WithImports(store)
		eps := httpapi.MakeEndpoints(svc, kitserver.NewInstrumenter(log, base.Tel.Meter(name)))
		httpapi.Register(base.Mux, eps, svc, base.Protect, log)
		base.AddWorker((&importer.Worker{Service: svc, Pool: base.DB, Poll: cfg.ImportPoll, Log: log}).Run)
		base.Subscribe(events.Subscriptions(svc, store.Within)...)
		return nil
	})
}
