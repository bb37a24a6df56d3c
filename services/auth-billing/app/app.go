// Package app wires the auth-billing service: organizations, API keys,
// dashboard accounts, plans and usage billing.
package app

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/kycfield/kyc/pkg/config"
	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/keyring"
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

// Service describes the auth-billing service to launchers.
var Service = platform.Service{Name: name, Port: 8081, Database: "kyc_auth_billing", Topics: topics,
	Events: events.Contract(), Run: platform.Runner(Run)}

// name is also what Run logs and meters under (Run cannot read Service:
// Service refers to Run).
const name = "auth-billing"

var topics = []string{event.TopicAuth, event.TopicVerification, event.TopicGatewayUsage, event.TopicStaffAudit, event.TopicOrgAudit}

// Config is read from the environment; HTTP_ADDR and DATABASE_URL default
// to Service's port and database.
type Config struct {
	config.Common
	HTTPAddr    string        `env:"HTTP_ADDR"`
	DatabaseURL string        `env:"DATABASE_URL"`
	RedisURL    string        `env:"REDIS_URL" envDefault:"redis://127.0.0.1:6379/0"`
	RedisPrefix string        `env:"REDIS_KEY_PREFIX" envDefault:"kyc:"`
	AdminToken  string        `env:"ADMIN_TOKEN" envDefault:"local-admin-token-change-me" secret:"true"`
	BcryptCost  int           `env:"BCRYPT_COST" envDefault:"12"`
	SessionTTL  time.Duration `env:"SESSION_TTL" envDefault:"12h"`
	// TOTPKeys encrypt dashboard users' TOTP secrets at rest:
	// "id:base64-32-bytes,..."; the active one seals new secrets.
	TOTPKeys      string `env:"TOTP_KEYS" envDefault:"local1:suAAo5uMGR4Aavec0Rcz99MfGYiUbRLFj4vvttr9Y/M=" secret:"true"`
	TOTPActiveKey string `env:"TOTP_ACTIVE_KEY" envDefault:"local1"`
	// PublicURL is the gateway as people reach it: staff enrolment links
	// point at its /ops/ console.
	PublicURL string `env:"PUBLIC_URL" envDefault:"http://127.0.0.1:8080"`
	// StaffSessionTTL and StaffEnrolTTL are the lifetimes of an operations
	// staff sign-in and of an enrolment link.
	StaffSessionTTL time.Duration `env:"STAFF_SESSION_TTL" envDefault:"12h"`
	StaffEnrolTTL   time.Duration `env:"STAFF_ENROL_TTL" envDefault:"72h"`
}

// Run serves until ctx ends. onListen (optional) receives the bound address.
func Run(ctx context.Context, cfg Config, log *slog.Logger, onListen func(string)) error {
	totpKeys, err := keyring.Parse(cfg.TOTPKeys, cfg.TOTPActiveKey)
	if err != nil {
		return fmt.Errorf("%s: TOTP_KEYS: %w", name, err)
	}
	ropt, err := redis.ParseURL(cfg.RedisURL)
	if err != nil {
		return fmt.Errorf("%s: REDIS_URL: %w", name, err)
	}
	opts := platform.Options{Name: name, Common: cfg.Common, DatabaseURL: cfg.DatabaseURL, Migrations: migrations.Set(), Topics: topics}
	return platform.Run(ctx, log, opts, cfg.HTTPAddr, onListen, func(_ context.Context, base *platform.Base) error {
		rdb := redis.NewClient(ropt)
		base.AddCloser(func() { _ = rdb.Close() })

		now := time.Now
		store := postgres.New(base.DB, base.Bus.Topic(event.TopicAuth), base.Bus.Topic(event.TopicStaffAudit), base.Bus.Topic(event.TopicOrgAudit))
		acc := account.NewService(store, now)
		dash := account.NewDashboard(store, acc, throttle.New(rdb, cfg.RedisPrefix, throttle.DefaultLimits, log), totpKeys, now, cfg.BcryptCost, cfg.SessionTTL)
		prices := Prices()
		usage := postgres.NewUsage(base.DB)
		bill := billing.NewService(usage, prices, now)

		eps := httpapi.MakeEndpoints(acc, bill, kitserver.NewInstrumenter(log, base.Tel.Meter(name)))
		httpapi.Register(base.Mux, eps, cfg.AdminToken, base.Protect, log)
		httpapi.RegisterDashboard(base.Mux, dash, eps, base.Protect, httpapi.DashboardOptions{SecureCookies: cfg.Production(), PublicURL: cfg.PublicURL}, log)
		httpapi.RegisterDashboardAdmin(base.Mux, dash, cfg.AdminToken, log)
		// Staff sign-in attempts have counters of their own (another key
		// prefix), so a lender's failures never lock a staff member out.
		staffThrottle := throttle.New(rdb, cfg.RedisPrefix+"staff:", throttle.DefaultLimits, log)
		staff := account.NewStaff(store, staffThrottle, totpKeys, now,
			account.StaffOptions{SessionTTL: cfg.StaffSessionTTL, EnrolTTL: cfg.StaffEnrolTTL, Cost: cfg.BcryptCost})
		httpapi.RegisterOps(base.Mux, staff, acc, cfg.AdminToken, base.Protect,
			httpapi.OpsOptions{SecureCookies: cfg.Production(), PublicURL: cfg.PublicURL}, log)

		base.Subscribe(append(events.Subscriptions(bill, usage.Within), events.AuditSubscription(), events.OrgAuditSubscription())...)
		return nil
	})
}

// Prices is the plan catalogue as billing sees it.
func Prices() map[string]billing.PlanPrice {
	out := make(map[string]billing.PlanPrice, len(account.Plans))
	for id, p := range account.Plans {
		out[id] = billing.PlanPrice{Name: p.Name, BaseFeeCents: p.BaseFeeCents, UnitPriceCents: p.UnitPriceCents}
	}
	return out
}
