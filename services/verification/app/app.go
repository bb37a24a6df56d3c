// Package app wires the verification service: verification jobs per
// address, the sandbox simulation, evidence, status and statistics.
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
	"github.com/kycfield/kyc/services/verification/internal/events"
	"github.com/kycfield/kyc/services/verification/internal/httpapi"
	"github.com/kycfield/kyc/services/verification/internal/postgres"
	"github.com/kycfield/kyc/services/verification/internal/sandbox"
	"github.com/kycfield/kyc/services/verification/internal/verification"
	"github.com/kycfield/kyc/services/verification/internal/verification/view"
	"github.com/kycfield/kyc/services/verification/migrations"
)

// Service describes the verification service to launchers.
var Service = platform.Service{Name: name, Port: 8084, Database: "kyc_verification", Bucket: "kyc-evidence",
	Topics: topics, Events: events.Contract(), Run: platform.Runner(Run)}

var topics = []string{event.TopicVerification, event.TopicCustomer, event.TopicDocument, event.TopicAuth, event.TopicStaffAudit}

// name is also what Run logs under (Run cannot read Service: Service
// refers to Run).
const name = "verification"

// Config is read from the environment; HTTP_ADDR, DATABASE_URL and
// MINIO_BUCKET default to Service's port, database and bucket.
type Config struct {
	config.Common
	HTTPAddr    string `env:"HTTP_ADDR"`
	DatabaseURL string `env:"DATABASE_URL"`
	Store       objstore.Config
	Bucket      string `env:"MINIO_BUCKET"`
	// PublicURL is the gateway's address as clients reach it: photo URLs
	// in responses and events are under it.
	PublicURL string `env:"PUBLIC_URL" envDefault:"http://127.0.0.1:8080"`
	// CustomerURL is the customer service's own address: a lender's photo
	// download asks it whether the customer is still there, so a deleted
	// customer's photos are 404 at once.
	CustomerURL string `env:"CUSTOMER_URL" envDefault:"http://127.0.0.1:8082"`
	// SandboxDelay is how long the simulated agent takes, after
	// submission and again after a failed visit. At 0 it acts in the
	// transaction that opens the address (verification.Sandbox.Immediate).
	SandboxDelay time.Duration `env:"SANDBOX_DELAY" envDefault:"5s"`
	// SandboxPoll is the shortest pause between the sandbox worker's looks
	// for due work: idle, it sleeps until the next job falls due (or a
	// transaction wakes it), so an idle platform does not poll.
	SandboxPoll time.Duration `env:"SANDBOX_POLL" envDefault:"500ms"`
	// AdminToken guards operations' API for agents and tasks (kycctl).
	AdminToken string `env:"ADMIN_TOKEN" envDefault:"local-admin-token-change-me" secret:"true"`
	Orphans    pending.Config
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
		mock, err := sandbox.StorePhotos(ctx, mc, cfg.Bucket)
		if err != nil {
			return err
		}
		render := view.Renderer{BaseURL: cfg.PublicURL}
		store := postgres.New(base.DB, base.Bus.Topic(event.TopicVerification), events.Publisher{View: render}.Of)
		store.AuditOn(base.Bus.Topic(event.TopicStaffAudit))
		svc := verification.NewService(store, time.Now, verification.Sandbox{Delay: cfg.SandboxDelay, Photos: mock.Sizes,
			Immediate: cfg.SandboxDelay <= 0})
		svc.AskCustomers(base.Finder(cfg.CustomerURL, func(id string) string { return "/api/v1/customers/" + url.PathEscape(id) }))
		if err := countOutcomes(svc, base.Tel.Meter(name)); err != nil {
			return err
		}
		bucket := sandbox.Photos{Bucket: objstore.Bucket{Client: mc, Name: cfg.Bucket}, Mock: mock}
		eps := httpapi.MakeEndpoints(svc, render, bucket, kitserver.NewInstrumenter(log, base.Tel.Meter(name)))
		httpapi.Register(base.Mux, eps, svc, bucket, base.Protect, log)
		httpapi.RegisterOps(base.Mux, eps.Ops, base.Protect, log)
		base.AddWorker(cfg.Orphans.Sweeper(base.DB, bucket.Delete, log).Run)
		httpapi.RegisterAdmin(base.Mux, eps.Admin, cfg.AdminToken, log)
		httpapi.RegisterReviews(base.Mux, eps.Reviews, svc, bucket, base.Protect, cfg.AdminToken, log)
		base.Subscribe(events.Subscriptions(svc, store.Within)...)
		base.AddWorker((&sandbox.Worker{Service: svc, Pool: base.DB, Poll: cfg.SandboxPoll, Log: log}).Run)
		return nil
	})
}
