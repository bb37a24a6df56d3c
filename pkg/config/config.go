// Package config loads a service's configuration from environment
// variables into a struct (github.com/caarlos0/env), with defaults that
// work for the local stack. Fields tagged secret:"true" are masked in the
// start-up log and, in production mode, must be set explicitly.
package config

import (
	"fmt"
	"net/url"
	"os"
	"reflect"
	"strings"
	"time"

	"github.com/caarlos0/env/v11"
)

// Common is embedded by every binary's configuration.
type Common struct {
	// Mode is "local" (make run, tests) or "production"; production refuses
	// default secrets and turns on secure cookies.
	Mode     string `env:"KYC_MODE" envDefault:"local"`
	LogLevel string `env:"LOG_LEVEL" envDefault:"info"`
	// PrincipalSecrets sign and verify the gateway's principal header. The
	// first signs; all verify (rotation).
	PrincipalSecrets []string      `env:"PRINCIPAL_SECRETS" envDefault:"local-principal-secret-change-me" secret:"true"`
	PrincipalTTL     time.Duration `env:"PRINCIPAL_TTL" envDefault:"60s"`
	KafkaBrokers     []string      `env:"KAFKA_BROKERS" envDefault:"127.0.0.1:9092"`
	KafkaTopicPrefix string        `env:"KAFKA_TOPIC_PREFIX" envDefault:"kyc."`
	KafkaPartitions  int           `env:"KAFKA_PARTITIONS" envDefault:"3"`
	KafkaReplication int           `env:"KAFKA_REPLICATION" envDefault:"1"`
	ShutdownTimeout  time.Duration `env:"SHUTDOWN_TIMEOUT" envDefault:"20s"`
	// ShutdownDelay is how long a process told to stop keeps serving while
	// its /readyz fails, before it closes its listener: load balancers
	// (kube-proxy, the Ingress) stop routing to a terminating pod a moment
	// after it got SIGTERM, and a connection routed there meanwhile must
	// not be refused. 0 locally, where nothing routes by readiness.
	ShutdownDelay time.Duration `env:"SHUTDOWN_DELAY" envDefault:"0s"`
}

// Production reports whether the binary runs in production mode.
func (c Common) Production() bool { return c.Mode == "production" }

// Load fills cfg (a pointer to a struct) from the process environment.
func Load(cfg any) error { return LoadFrom(cfg, Environ()) }

// Environ returns the process environment as a map, the form LoadFrom
// takes; launchers copy it and override per-instance values.
func Environ() map[string]string {
	out := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			out[k] = v
		}
	}
	return out
}

// LoadFrom fills cfg from environ instead of the process environment, so
// that several services in one process (make run, tests) each read their
// own HTTP_ADDR, DATABASE_URL and bucket.
func LoadFrom(cfg any, environ map[string]string) error {
	if err := env.ParseWithOptions(cfg, env.Options{Environment: environ}); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	mode := environ["KYC_MODE"]
	if mode != "" && mode != "local" && mode != "production" {
		return fmt.Errorf("config: KYC_MODE must be local or production, got %q", mode)
	}
	if mode == "production" {
		var missing []string
		walk(reflect.ValueOf(cfg).Elem(), func(f reflect.StructField, _ reflect.Value) {
			if f.Tag.Get("secret") == "true" {
				if v, ok := environ[f.Tag.Get("env")]; !ok || v == f.Tag.Get("envDefault") {
					missing = append(missing, f.Tag.Get("env"))
				}
			}
		})
		if len(missing) > 0 {
			return fmt.Errorf("config: production mode needs explicit values for %s", strings.Join(missing, ", "))
		}
	}
	return nil
}

// LogAttrs lists every setting as slog key/value pairs with secrets and
// URL passwords masked, for the start-up log line.
func LogAttrs(cfg any) []any {
	var out []any
	walk(reflect.ValueOf(cfg).Elem(), func(f reflect.StructField, v reflect.Value) {
		name := f.Tag.Get("env")
		if name == "" {
			return
		}
		if f.Tag.Get("secret") == "true" {
			out = append(out, name, "***")
			return
		}
		s := fmt.Sprint(v.Interface())
		if u, err := url.Parse(s); err == nil && u.User != nil {
			if _, has := u.User.Password(); has {
				u.User = url.UserPassword(u.User.Username(), "***")
				s = u.String()
			}
		}
		out = append(out, name, s)
	})
	return out
}

func walk(v reflect.Value, fn func(reflect.StructField, reflect.Value)) {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		if f.Type.Kind() == reflect.Struct && f.Tag.Get("env") == "" && f.Type != reflect.TypeOf(time.Time{}) {
			walk(v.Field(i), fn)
			continue
		}
		fn(f, v.Field(i))
	}
}
