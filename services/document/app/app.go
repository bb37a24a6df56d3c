// Package app wires the document service: documents supplied by clients, hosted in the object store. Its endpoints arrive with the document context's issue; the module, database, bucket and probes are in place.
package app

import (
	"context"
	"log/slog"

	"github.com/kycfield/kyc/pkg/config"
	"github.com/kycfield/kyc/pkg/objstore"
	"github.com/kycfield/kyc/pkg/platform"
)

// Config is read from the environment.
type Config struct {
	config.Common
	HTTPAddr    string `env:"HTTP_ADDR" envDefault:"127.0.0.1:8083"`
	DatabaseURL string `env:"DATABASE_URL" envDefault:"postgres://postgres:postgres@127.0.0.1:5432/kyc_document?sslmode=disable"`
	Store       objstore.Config
	Bucket      string `env:"MINIO_BUCKET" envDefault:"kyc-documents"`
}

// Run serves until ctx ends. onListen (optional) receives the bound address.
func Run(ctx context.Context, cfg Config, log *slog.Logger, onListen func(string)) error {
	base, err := platform.Boot(ctx, log, platform.Options{Name: "document", Common: cfg.Common, DatabaseURL: cfg.DatabaseURL})
	if err != nil {
		return err
	}
	mc, err := objstore.Open(ctx, cfg.Store, cfg.Bucket)
	if err != nil {
		base.Close()
		return err
	}
	base.Health.Add("minio", objstore.Check(mc, cfg.Bucket))
	base.NotImplemented("POST /api/v1/customers/{id}/documents")
	return base.Serve(ctx, cfg.HTTPAddr, onListen)
}
