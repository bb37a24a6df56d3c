// Command webhook serves the webhook context.
package main

import (
	"context"
	"log/slog"

	"github.com/kycfield/kyc/pkg/config"
	"github.com/kycfield/kyc/pkg/platform"
	"github.com/kycfield/kyc/services/webhook/app"
)

func main() {
	var cfg app.Config
	platform.Main("webhook", &cfg, func(c *app.Config) config.Common { return c.Common },
		func(ctx context.Context, cfg app.Config, log *slog.Logger) error { return app.Run(ctx, cfg, log, nil) })
}
