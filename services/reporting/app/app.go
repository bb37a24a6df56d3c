// Package app wires the reporting service: PDF KYC reports rendered when a
// customer's verification ends, stored in the object store, served to the
// lender and vouched for publicly by their verification code.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"runtime"
	"time"

	"github.com/kycfield/kyc/pkg/config"
	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/kitserver"
	"github.com/kycfield/kyc/pkg/objstore"
	"github.com/kycfield/kyc/pkg/platform"
	"github.com/kycfield/kyc/services/reporting/internal/events"
	"github.com/kycfield/kyc/services/reporting/internal/evidence"
	"github.com/kycfield/kyc/services/reporting/internal/httpapi"
	"github.com/kycfield/kyc/services/reporting/internal/pdf"
	"github.com/kycfield/kyc/services/reporting/internal/pdfsig"
	"github.com/kycfield/kyc/services/reporting/internal/postgres"
	"github.com/kycfield/kyc/services/reporting/internal/render"
	"github.com/kycfield/kyc/services/reporting/internal/report"
	"github.com/kycfield/kyc/services/reporting/migrations"
)

// Service describes the reporting service to launchers.
var Service = platform.Service{Name: name, Port: 8085, Database: "kyc_reporting", Bucket: "kyc-reports",
	Topics: topics, Events: events.Contract(), Run: platform.Runner(Run)}

var topics = []string{event.TopicReporting, event.TopicCustomer, event.TopicVerification, event.TopicDocument, event.TopicAuth, event.TopicOrgAudit}

// name is also what Run logs under (Run cannot read Service: Service
// refers to Run).
const name = "reporting"

// Config is read from the environment; HTTP_ADDR, DATABASE_URL and
// MINIO_BUCKET default to Service's port, database and bucket.
type Config struct {
	config.Common
	HTTPAddr    string `env:"HTTP_ADDR"`
	DatabaseURL string `env:"DATABASE_URL"`
	Store       objstore.Config
	Bucket      string `env:"MINIO_BUCKET"`
	// PublicURL is the gateway's address as clients reach it: reportUrl
	// and the verify URL printed on reports are under it.
	PublicURL string `env:"PUBLIC_URL" envDefault:"http://127.0.0.1:8080"`
	// VerificationURL is the verification service's own address (not the
	// gateway's): the evidence photos are read there.
	VerificationURL string `env:"VERIFICATION_URL" envDefault:"http://127.0.0.1:8084"`
	// CustomerURL is the customer service's own address: a download asks
	// it whether the customer is still there, so a report is 404 the
	// moment its customer is deleted.
	CustomerURL string `env:"CUSTOMER_URL" envDefault:"http://127.0.0.1:8082"`
	// PhotoTimeout bounds each photo read. While the verification service
	// does not answer, the report waits (its event is retried); a photo it
	// says is gone is printed as unavailable.
	PhotoTimeout time.Duration `env:"PHOTO_TIMEOUT" envDefault:"10s"`
	// RenderPoll is how often the render worker looks for renders due
	// without an announcement (retries after a failure).
	RenderPoll time.Duration `env:"RENDER_POLL" envDefault:"1s"`
	// RenderWorkers is how many reports render at once. A render waits on
	// photo reads and MinIO writes as well as the CPU, so one worker left
	// the queue growing under a burst while a core idled; the claim (FOR
	// UPDATE SKIP LOCKED) lets workers share the queue. 0: one per core.
	RenderWorkers int `env:"RENDER_WORKERS" envDefault:"0"`
	// SigningCertFile and SigningKeyFile (PEM) are the platform's report
	// signing certificate (chain) and key. Without them every process
	// makes its own self-signed key at start: reports are still signed,
	// but no reader can trust the signer, so production sets them.
	SigningCertFile string `env:"REPORT_SIGNING_CERT_FILE"`
	SigningKeyFile  string `env:"REPORT_SIGNING_KEY_FILE"`
}

// signer loads the configured report-signing key. Outside production, a
// key that is not configured (or whose files are absent: the Kubernetes
// Secret is optional in the dev overlay) is replaced by an ephemeral one;
// production refuses to start without it, as it refuses default secrets.
func signer(cfg Config, log *slog.Logger) (*pdfsig.Signer, error) {
	cert, certErr := os.ReadFile(cfg.SigningCertFile)
	key, keyErr := os.ReadFile(cfg.SigningKeyFile)
	if err := errors.Join(certErr, keyErr); err != nil {
		if cfg.Production() {
			return nil, fmt.Errorf("REPORT_SIGNING_CERT_FILE and REPORT_SIGNING_KEY_FILE must name the report signing certificate and key: %w", err)
		}
		log.Warn("no report signing key: reports are signed with an ephemeral self-signed key", "err", err)
		return pdfsig.Ephemeral("KYC field verification (unconfigured signing key)")
	}
	return pdfsig.Load(cert, key)
}

// Run serves until ctx ends. onListen (optional) receives the bound address.
func Run(ctx context.Context, cfg Config, log *slog.Logger, onListen func(string)) error {
	opts := platform.Options{Name: name, Common: cfg.Common, DatabaseURL: cfg.DatabaseURL, Migrations: migrations.Set(), Topics: topics}
	return platform.Run(ctx, log, opts, cfg.HTTPAddr, onListen, func(ctx context.Context, base *platform.Base) error {
		mc, err := objstore.Open(ctx, cfg.Store, cfg.Bucket)
		if err != nil {
			return err
		}
		base.Health.Add("minio", objstore.Check(mc, cfg.Bucket))
		links := report.Links{PublicURL: cfg.PublicURL}
		store := postgres.New(base.DB, base.Bus.Topic(event.TopicReporting), events.Publisher{ReportURL: links.ReportURL}.Of)
		store.AuditOn(base.Bus.Topic(event.TopicOrgAudit))
		bucket := objstore.Bucket{Client: mc, Name: cfg.Bucket}
		src := evidence.New(cfg.VerificationURL, base.Signer, cfg.PhotoTimeout)
		src.HTTP.Transport = base.Tel.Transport(nil) // photo fetches are spans of the report's trace
		photos := evidence.Cached{Source: src, Store: bucket}
		sig, err := signer(cfg, log)
		if err != nil {
			return err
		}
		svc := report.NewService(store, bucket, pdf.Renderer{Signer: sig}, photos, time.Now, links)
		svc.AskCustomers(base.Finder(cfg.CustomerURL, func(id string) string { return "/api/v1/customers/" + url.PathEscape(id) }))
		eps := httpapi.MakeEndpoints(svc, kitserver.NewInstrumenter(log, base.Tel.Meter(name)))
		httpapi.Register(base.Mux, eps, svc, base.Protect, log)
		base.Subscribe(events.Subscriptions(svc, store.Within)...)
		workers := cfg.RenderWorkers
		if workers <= 0 {
			workers = runtime.GOMAXPROCS(0)
		}
		base.AddWorker((&render.Worker{Service: svc, Pool: base.DB, Poll: cfg.RenderPoll, Parallel: workers, Log: log}).Run)
		return nil
	})
}
