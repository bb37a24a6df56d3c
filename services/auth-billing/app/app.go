// Package app wires the auth-billing service: organizations, API keys,
// dashboard accounts, plans and usage billing.
package app

import (
	"context"
	"log/slog"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/kycfield/kyc/pkg/config"
	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/kitserver"
	"github.com/kycfield/kyc/pkg/platform"
	"github.com/kycfield/kyc/services/auth-billing/internal/account"
	"github.com/kycfield/kyc/services/auth-billing/internal/billing"
	"github.com/kycfield/kyc/services/auth-billing/internal/events"
	"github.com/kycfield/kyc/services/auth-billing/internal/httpapi"
	"github.com/kycfield/kyc/services/auth-billing/internal/postgres"
	"github.com/kycfield/kyc/services/auth-billing/internal/throttle"
	"github.com/kycfield/kyc/services/auth-billing/migrations"
)

// Config is read from the environment.
type Config struct {
	config.Common
	HTTPAddr    string        `env:"HTTP_ADDR" envDefault:"127.0.0.1:8081"`
	DatabaseURL string        `env:"DATABASE_URL" envDefault:"postgres://postgres:postgres@127.0.0.1:5432/kyc_auth_billing?sslmode=disable"`
	RedisURL    string        `env:"REDIS_URL" envDefault:"redis://127.0.0.1:6379/0"`
	RedisPrefix string        `env:"REDIS_KEY_PREFIX" envDefault:"kyc:"`
	AdminToken  string        `env:"ADMIN_TOKEN" envDefault:"local-admin-token-change-me" secret:"true"`
	BcryptCost  int           `env:"BCRYPT_COST" envDefault:"12"`
	SessionTTL  time.Duration `env:"SESSION_TTL" envDefault:"12h"`
}

// Run serves until ctx ends. onListen (optional) receives the bound address.
func Run(ctx context.Context, cfg Config, log *slog.Logger, onListen func(string)) error {
	base, err := platform.Boot(ctx, log, platform.Options{
		Name: "auth-billing", Common: cfg.Common, DatabaseURL: cfg.DatabaseURL, Migrations: migrations.Set(),
		Topics: []string{event.TopicAuth, event.TopicVerification, event.TopicGatewayUsage},
	})
	if err != nil {
		return err
	}
	ropt, err := redis.ParseURL(cfg.RedisURL)
	if err != nil {
		base.Close()
		return err
	}
	rdb := redis.NewClient(ropt)
	base.AddCloser(func() { _ = rdb.Close() })

	now := time.Now
	store := postgres.New(base.DB, base.Bus.Topic(event.TopicAuth))
	acc := account.NewService(store, now)
	dash := account.NewDashboard(store, acc, throttle.New(rdb, cfg.RedisPrefix, 15*time.Minute, log), now, cfg.BcryptCost, cfg.SessionTTL)
	prices := Prices()
	bill := billing.NewService(postgres.NewUsage(base.DB), prices, now)

	eps := httpapi.MakeEndpoints(acc, bill, kitserver.NewInstrumenter(log, base.Tel.Meter("auth-billing")))
	httpapi.Register(base.Mux, eps, cfg.AdminToken, base.Protect, log)
	httpapi.RegisterDashboard(base.Mux, dash, eps, base.Protect, httpapi.DashboardOptions{SecureCookies: cfg.Production()}, log)

	base.Consume("auth-billing.billing", events.Billing(prices), event.TopicVerification)
	base.Consume("auth-billing.usage", events.Usage(), event.TopicGatewayUsage)
	return base.Serve(ctx, cfg.HTTPAddr, onListen)
}

// Prices is the plan catalogue as billing sees it.
func Prices() map[string]billing.PlanPrice {
	out := make(map[string]billing.PlanPrice, len(account.Plans))
	for id, p := range account.Plans {
		out[id] = billing.PlanPrice{Name: p.Name, BaseFeeCents: p.BaseFeeCents, UnitPriceCents: p.UnitPriceCents}
	}
	return out
}
