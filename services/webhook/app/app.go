// Package app wires the webhook service: webhook endpoints and signed deliveries. Its endpoints arrive with the webhook context's issue; the module, database and probes are in place.
package app

import (
	"context"
	"log/slog"

	"github.com/kycfield/kyc/pkg/config"

	"github.com/kycfield/kyc/pkg/platform"
)

// Config is read from the environment.
type Config struct {
	config.Common
	HTTPAddr    string `env:"HTTP_ADDR" envDefault:"127.0.0.1:8086"`
	DatabaseURL string `env:"DATABASE_URL" envDefault:"postgres://postgres:postgres@127.0.0.1:5432/kyc_webhook?sslmode=disable"`
}

// Run serves until ctx ends. onListen (optional) receives the bound address.
func Run(ctx context.Context, cfg Config, log *slog.Logger, onListen func(string)) error {
	base, err := platform.Boot(ctx, log, platform.Options{Name: "webhook", Common: cfg.Common, DatabaseURL: cfg.DatabaseURL})
	if err != nil {
		return err
	}
	return base.Serve(ctx, cfg.HTTPAddr, onListen)
}
