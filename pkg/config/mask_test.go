package config_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"testing"

	"github.com/kycfield/kyc/pkg/config"
)

type maskedConfig struct {
	config.Common
	DatabaseURL string `env:"DATABASE_URL"`
	AdminToken  string `env:"ADMIN_TOKEN" secret:"true"`
	Port        int    `env:"PORT"`
	Storage     struct {
		Endpoint  string `env:"S3_ENDPOINT"`
		SecretKey string `env:"S3_SECRET_KEY" secret:"true"`
	}
}

// The start-up log must show every setting an operator needs to check,
// and no secret: not the values of fields tagged secret:"true" (in nested
// structs and slices too), nor the password inside a URL.
func TestLogAttrsMasksSecrets(t *testing.T) {
	var cfg maskedConfig
	cfg.Mode, cfg.LogLevel = "local", "debug"
	cfg.PrincipalSecrets = []string{"principal-secret-one", "principal-secret-two"}
	cfg.KafkaBrokers = []string{"kafka-1:9092", "kafka-2:9092"}
	cfg.DatabaseURL = "postgres://app:db-pa55word@db.internal:5432/kyc?sslmode=disable"
	cfg.AdminToken = "admin-token-value"
	cfg.Port = 8443
	cfg.Storage.Endpoint = "minio.internal:9000"
	cfg.Storage.SecretKey = "s3-secret-value"

	attrs := config.LogAttrs(&cfg)
	var buf bytes.Buffer
	slog.New(slog.NewTextHandler(&buf, nil)).Info("starting", attrs...)
	line := buf.String()

	for _, secret := range []string{"principal-secret-one", "principal-secret-two", "db-pa55word", "admin-token-value", "s3-secret-value"} {
		if strings.Contains(line, secret) || strings.Contains(fmt.Sprint(attrs...), secret) {
			t.Errorf("secret %q is logged in clear:\n%s", secret, line)
		}
	}

	got := map[string]string{}
	for i := 0; i+1 < len(attrs); i += 2 {
		got[attrs[i].(string)] = fmt.Sprint(attrs[i+1])
	}
	want := map[string]string{
		"KYC_MODE":          "local",
		"LOG_LEVEL":         "debug",
		"KAFKA_BROKERS":     "[kafka-1:9092 kafka-2:9092]",
		"PORT":              "8443",
		"S3_ENDPOINT":       "minio.internal:9000",
		"PRINCIPAL_SECRETS": "***",
		"ADMIN_TOKEN":       "***",
		"S3_SECRET_KEY":     "***",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s logged as %q, want %q", k, got[k], v)
		}
	}
	// The URL keeps everything but its password (which url.URL escapes
	// as %2A%2A%2A).
	u, err := url.Parse(got["DATABASE_URL"])
	if err != nil || u.User == nil {
		t.Fatalf("DATABASE_URL logged as %q", got["DATABASE_URL"])
	}
	if pw, _ := u.User.Password(); pw != "***" || u.User.Username() != "app" || u.Host != "db.internal:5432" ||
		u.Path != "/kyc" || u.RawQuery != "sslmode=disable" {
		t.Errorf("DATABASE_URL logged as %q", got["DATABASE_URL"])
	}
}
