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
	"github.com/kycfield/kyc/services/customer/internal/postgres"
	"github.com/kycfield/kyc/services/customer/migrations"
)

// Config is read from the environment.
type Config struct {
	config.Common
	HTTPAddr    string `env:"HTTP_ADDR" envDefault:"127.0.0.1:8082"`
	DatabaseURL string `env:"DATABASE_URL" envDefault:"postgres://postgres:postgres@127.0.0.1:5432/kyc_customer?sslmode=disable"`
	MaxConns    int32  `env:"DATABASE_MAX_CONNS" envDefault:"20"`
	// PIIKeys encrypt BVN and NIN at rest: "id:base64-32-bytes,..."; the
	// active one seals new values, all of them open old ones.
	PIIKeys      string `env:"PII_KEYS" envDefault:"local1:jSv7ih3Y8m8Zgui3cFjZHBJZGwcPPrL1k2W8ntQftE0=" secret:"true"`
	PIIActiveKey string `env:"PII_ACTIVE_KEY" envDefault:"local1"`
}

// Run serves until ctx ends. onListen (optional) receives the bound address.
func Run(ctx context.Context, cfg Config, log *slog.Logger, onListen func(string)) error {
	keys, err := keyring.Parse(cfg.PIIKeys, cfg.PIIActiveKey)
	if err != nil {
		return err
	}
	base, err := platform.Boot(ctx, log, platform.Options{
		Name: "customer", Common: cfg.Common, DatabaseURL: cfg.DatabaseURL, MaxConns: cfg.MaxConns,
		Migrations: migrations.Set(), Topics: []string{event.TopicCustomer, event.TopicVerification},
	})
	if err != nil {
		return err
	}
	store := postgres.New(base.DB, keys, base.Bus.Topic(event.TopicCustomer))
	svc := customer.NewService(store, time.Now)
	eps := httpapi.MakeEndpoints(svc, kitserver.NewInstrumenter(log, base.Tel.Meter("customer")))
	httpapi.Register(base.Mux, eps, base.Protect, log)
	base.Consume("customer.verification-status", events.Verification(svc, store.Within), event.TopicVerification)
	return base.Serve(ctx, cfg.HTTPAddr, onListen)
}
