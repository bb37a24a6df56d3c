package platform

import (
	"context"
	"flag"
	"os"
	"os/signal"
	"syscall"

	"github.com/kycfield/kyc/pkg/config"
	"github.com/kycfield/kyc/pkg/logging"
)

// Main is the body of every service's own main(): run s with its defaults
// under the process environment until SIGINT/SIGTERM, and exit non-zero on
// failure. With -migrate-only it creates and migrates the service's
// database and exits: the same image serves as its migration Job.
func Main(s Service) {
	migrate := flag.Bool("migrate-only", false, "create and migrate the database, then exit (a migration job)")
	flag.Parse()
	environ := s.Environ(config.Environ())
	log := logging.New(s.Name, environ["LOG_LEVEL"])
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *migrate {
		ctx = MigrateOnly(ctx)
	}
	if err := s.Run(ctx, environ, log, nil); err != nil {
		log.Error("exiting", "err", err)
		stop()
		os.Exit(1)
	}
}

type migrateOnlyKey struct{}

// MigrateOnly marks ctx so that Run stops once the service's database is
// migrated, before it connects to anything else or serves.
func MigrateOnly(ctx context.Context) context.Context {
	return context.WithValue(ctx, migrateOnlyKey{}, true)
}

func migrateOnly(ctx context.Context) bool {
	v, _ := ctx.Value(migrateOnlyKey{}).(bool)
	return v
}
