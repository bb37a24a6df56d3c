package platform

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/kycfield/kyc/pkg/config"
	"github.com/kycfield/kyc/pkg/logging"
)

// Main is the body of every service's main(): load cfg from the
// environment, log it (secrets masked), run until SIGINT/SIGTERM, and exit
// non-zero on failure.
func Main[C any](name string, cfg *C, common func(*C) config.Common, run func(ctx context.Context, cfg C, log *slog.Logger) error) {
	if err := config.Load(cfg); err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		os.Exit(2)
	}
	log := logging.New(name, common(cfg).LogLevel)
	log.Info("starting", config.LogAttrs(cfg)...)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *cfg, log); err != nil {
		log.Error("exiting", "err", err)
		stop()
		os.Exit(1)
	}
}
