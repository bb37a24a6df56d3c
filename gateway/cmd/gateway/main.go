// Command gateway is the public edge of the KYC platform.
package main

import (
	"context"
	"log/slog"

	"github.com/kycfield/kyc/gateway/app"
	"github.com/kycfield/kyc/pkg/config"
	"github.com/kycfield/kyc/pkg/platform"
)

func main() {
	var cfg app.Config
	platform.Main("gateway", &cfg, func(c *app.Config) config.Common { return c.Common },
		func(ctx context.Context, cfg app.Config, log *slog.Logger) error { return app.Run(ctx, cfg, log, nil) })
}
