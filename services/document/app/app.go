// Package app wires the document service: documents supplied by clients,
// as links or as files hosted in the object store.
package app

import (
	"context"
	"log/slog"
	"net/url"
	"time"

	"github.com/kycfield/kyc/pkg/config"
	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/kitserver"
	"github.com/kycfield/kyc/pkg/objstore"
	"github.com/kycfield/kyc/pkg/objstore/pending"
	"github.com/kycfield/kyc/pkg/pgdb"
	"github.com/kycfield/kyc/pkg/platform"
	"github.com/kycfield/kyc/services/document/internal/document"
	"github.com/kycfield/kyc/services/document/internal/events"
	"github.com/kycfield/kyc/services/document/internal/files"
	"github.com/kycfield/kyc/services/document/internal/httpapi"
	"github.com/kycfield/kyc/services/document/internal/postgres"
	"github.com/kycfield/kyc/services/document/migrations"
)

// Service describes the document service to launchers.
var Service = platform.Service{Name: name, Port: 8083, Database: "kyc_document", Bucket: "kyc-documents",
	Topics: topics, Events: events.Contract(), Run: platform.Runner(Run)}

var topics = []string{event.TopicDocument, event.TopicCustomer, event.TopicOrgAudit}

// name is also what Run logs under (Run cannot read Service: Service
// refers to Run).
const name = "document"

// Config is read from the environment; HTTP_ADDR, DATABASE_URL and
// MINIO_BUCKET default to Service's port, database and bucket.
type Config struct {
	config.Common
	HTTPAddr    string `env:"HTTP_ADDR"`
	DatabaseURL string `env:"DATABASE_URL"`
	Store       objstore.Config
	Bucket      string `env:"MINIO_BUCKET"`
	// PublicURL is the gateway's address as clients reach it: hosted
	// documents' fileUrl is under it.
	PublicURL string `env:"PUBLIC_URL" envDefault:"http://127.0.0.1:8080"`
	// UploadDir is where uploads are spooled while they are checked (the
	// system's temp dir when empty); each holds at most 10 MiB per
	// upload in flight.
	UploadDir string `env:"UPLOAD_DIR"`
	// OptimiseConcurrency bounds the images optimised at once (each holds
	// about 60 MB while it runs); 0 means one per core (GOMAXPROCS).
	OptimiseConcurrency int `env:"OPTIMISE_CONCURRENCY" envDefault:"0"`
	Orphans             pending.Config
	// CustomerURL is the customer service's own address: every request
	// about a customer's documents asks it whether the customer is still
	// there, so a deleted customer's documents are 404 at once.
	CustomerURL string `env:"CUSTOMER_URL" envDefault:"http://127.0.0.1:8082"`
}

// Run serves until ctx ends. onListen (optional) receives the bound address.
func Run(ctx context.Context, cfg Config, log *slog.Logger, onListen func(string)) error {
	opts := platform.Options{Name: name, Common: cfg.Common, DatabaseURL: cfg.DatabaseURL, Migrations: migrations.Set(), Topics: topics,
		Kit: []pgdb.Migration{pending.Migration()}}
	return platform.Run(ctx, log, opts, cfg.HTTPAddr, onListen, func(ctx context.Context, base *platform.Base) error {
		mc, err := objstore.Open(ctx, cfg.Store, cfg.Bucket)
		if err != nil {
			return err
		}
		base.Health.Add("minio", objstore.Check(mc, cfg.Bucket))
		v := httpapi.View{BaseURL: cfg.PublicURL}
		store := postgres.New(base.DB, base.Bus.Topic(event.TopicDocument), events.Publisher{View: v}.Of)
		store.AuditOn(base.Bus.Topic(event.TopicOrgAudit))
		if cfg.OptimiseConcurrency > 0 {
			files.SetConcurrency(cfg.OptimiseConcurrency)
		}
		bucket := objstore.Bucket{Client: mc, Name: cfg.Bucket}
		svc := document.NewService(store, bucket, time.Now)
		svc.AskCustomers(base.Finder(cfg.CustomerURL, func(id string) string { return "/api/v1/customers/" + url.PathEscape(id) }))
		base.AddWorker(cfg.Orphans.Sweeper(base.DB, bucket.Delete, log).Run)
		eps := httpapi.MakeEndpoints(svc, v, kitserver.NewInstrumenter(log, base.Tel.Meter(name)))
		httpapi.Register(base.Mux, eps, svc, v, httpapi.Uploads{Dir: cfg.UploadDir}, base.Protect, log)
		base.Subscribe(events.Subscriptions(svc, store.Within)...)
		return nil
	})
}
