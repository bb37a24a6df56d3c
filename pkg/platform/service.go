package platform

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"net/url"

	"github.com/kycfield/kyc/pkg/config"
	"github.com/kycfield/kyc/pkg/event"
)

// Service describes one deployable service to every launcher: its own
// binary (cmd/<name>, one per container in production), the all-in-one
// process `make run` starts, and the end-to-end test harness. A service's
// app package declares it; the registry in the stack module lists them.
type Service struct {
	Name string
	// Port is the local default port: HTTP_ADDR defaults to 127.0.0.1:Port.
	Port int
	// Database is the PostgreSQL database the service owns ("" for none);
	// DATABASE_URL defaults to it on the local server, and the service
	// creates it when missing.
	Database string
	// Bucket is the object-store bucket it owns ("" for none); the default
	// of MINIO_BUCKET.
	Bucket string
	// Topics are the Kafka topics (short names) it publishes to or
	// consumes from; it creates them when missing.
	Topics []string
	// Events are the service's side of the event contracts.
	Events event.Contract
	// Run serves until ctx ends, configured from environ (see Environ);
	// onListen, when set, receives the bound address.
	Run func(ctx context.Context, environ map[string]string, log *slog.Logger, onListen func(string)) error
}

// LocalPostgres is the server of the local stack (make run, tests).
const LocalPostgres = "postgres://postgres:postgres@127.0.0.1:5432/postgres?sslmode=disable"

// Addr is the service's local default listen address.
func (s Service) Addr() string { return fmt.Sprintf("127.0.0.1:%d", s.Port) }

// DatabaseURL is server (a PostgreSQL URL naming any database) with the
// service's own database put in its place.
func (s Service) DatabaseURL(server string) (string, error) {
	u, err := url.Parse(server)
	if err != nil || u.Scheme == "" {
		return "", fmt.Errorf("%s: DATABASE_URL is not a URL", s.Name)
	}
	u.Path = "/" + s.Database
	return u.String(), nil
}

// Defaults are the per-instance settings a launcher gives the service
// unless told otherwise: listen address, database and bucket.
func (s Service) Defaults() map[string]string {
	d := map[string]string{"HTTP_ADDR": s.Addr()}
	if s.Database != "" {
		d["DATABASE_URL"], _ = s.DatabaseURL(LocalPostgres)
	}
	if s.Bucket != "" {
		d["MINIO_BUCKET"] = s.Bucket
	}
	return d
}

// Environ layers the service's defaults, then each of layers in order
// (later wins), into the environment its Run reads.
func (s Service) Environ(layers ...map[string]string) map[string]string {
	env := s.Defaults()
	for _, l := range layers {
		maps.Copy(env, l)
	}
	return env
}

// Runner adapts a service's typed run function to Service.Run: it loads
// the configuration C from the environment it is given, logs it with
// secrets masked, and runs.
func Runner[C any](run func(ctx context.Context, cfg C, log *slog.Logger, onListen func(string)) error) func(context.Context, map[string]string, *slog.Logger, func(string)) error {
	return func(ctx context.Context, environ map[string]string, log *slog.Logger, onListen func(string)) error {
		var cfg C
		if err := config.LoadFrom(&cfg, environ); err != nil {
			return err
		}
		log.Info("starting", config.LogAttrs(&cfg)...)
		return run(ctx, cfg, log, onListen)
	}
}
