// Package harness starts the whole platform in one process for end-to-end
// tests and benchmarks: every service and the gateway on loopback ports,
// each service on a fresh PostgreSQL database, all of them on one Kafka
// topic prefix, one Redis key prefix and fresh MinIO buckets, so that
// several runs share the real servers without seeing each other.
package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
	"github.com/redis/go-redis/v9"

	gateway "github.com/kycfield/kyc/gateway/app"
	"github.com/kycfield/kyc/pkg/config"
	"github.com/kycfield/kyc/pkg/kafkabus"
	"github.com/kycfield/kyc/pkg/kafkatest"
	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/pkg/miniotest"
	"github.com/kycfield/kyc/pkg/pgtest"
	"github.com/kycfield/kyc/pkg/redistest"
	authbilling "github.com/kycfield/kyc/services/auth-billing/app"
	"github.com/kycfield/kyc/services/customer/app"
	document "github.com/kycfield/kyc/services/document/app"
	reporting "github.com/kycfield/kyc/services/reporting/app"
	verification "github.com/kycfield/kyc/services/verification/app"
	webhook "github.com/kycfield/kyc/services/webhook/app"
)

// AdminToken is the auth-billing admin token used by the harness.
const AdminToken = "harness-admin-token"

// Platform is a running platform.
type Platform struct {
	GatewayURL     string
	AuthBillingURL string
	URLs           map[string]string // service name -> base URL
	DatabaseURLs   map[string]string
	Bus            kafkabus.Config
	Redis          *redis.Client
	RedisPrefix    string
	HTTP           *http.Client

	common  config.Common
	gwCfg   gateway.Config
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	cleanup []func()
	log     io.Writer
}

// Start brings the platform up. Stop it with Stop.
func Start(ctx context.Context) (p *Platform, err error) {
	p = &Platform{URLs: map[string]string{}, DatabaseURLs: map[string]string{}, HTTP: &http.Client{Timeout: 30 * time.Second}, log: io.Discard}
	if os.Getenv("KYC_TEST_LOG") != "" {
		p.log = os.Stderr
	}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	defer func() {
		if err != nil {
			p.Stop()
		}
	}()
	if p.Bus, err = kafkatest.NewConfig(ctx); err != nil {
		return nil, err
	}
	p.cleanup = append(p.cleanup, func() { kafkatest.DeleteTopics(p.Bus) })
	if err := p.connectRedis(ctx); err != nil {
		return nil, err
	}
	var common config.Common
	if err := config.Load(&common); err != nil {
		return nil, err
	}
	common.KafkaBrokers, common.KafkaTopicPrefix, common.LogLevel = p.Bus.Brokers, p.Bus.TopicPrefix, "warn"
	common.ShutdownTimeout = 5 * time.Second
	p.common = common
	store := miniotest.Store()
	mc, err := minio.New(store.Endpoint, &minio.Options{Creds: credentials.NewStaticV4(store.AccessKey, store.SecretKey, "")})
	if err != nil {
		return nil, err
	}
	for _, name := range []string{"auth-billing", "customer", "document", "verification", "reporting", "webhook"} {
		u, drop, err := pgtest.Create(ctx, name)
		if err != nil {
			return nil, err
		}
		p.DatabaseURLs[name] = u
		p.cleanup = append(p.cleanup, drop)
	}
	bucket := func(kind string) string {
		name := "t-" + strings6(p.Bus.TopicPrefix) + "-" + kind
		p.cleanup = append(p.cleanup, func() { miniotest.RemoveBucket(mc, name) })
		return name
	}

	var ab authbilling.Config
	load(&ab)
	ab.Common, ab.HTTPAddr, ab.DatabaseURL, ab.AdminToken, ab.BcryptCost = common, "127.0.0.1:0", p.DatabaseURLs["auth-billing"], AdminToken, 4
	ab.RedisURL, ab.RedisPrefix = redistest.URL(), p.RedisPrefix+"ab:"
	var cu app.Config
	load(&cu)
	cu.Common, cu.HTTPAddr, cu.DatabaseURL = common, "127.0.0.1:0", p.DatabaseURLs["customer"]
	var do document.Config
	load(&do)
	do.Common, do.HTTPAddr, do.DatabaseURL, do.Store, do.Bucket = common, "127.0.0.1:0", p.DatabaseURLs["document"], store, bucket("documents")
	var ve verification.Config
	load(&ve)
	ve.Common, ve.HTTPAddr, ve.DatabaseURL, ve.Store, ve.Bucket = common, "127.0.0.1:0", p.DatabaseURLs["verification"], store, bucket("evidence")
	var re reporting.Config
	load(&re)
	re.Common, re.HTTPAddr, re.DatabaseURL, re.Store, re.Bucket = common, "127.0.0.1:0", p.DatabaseURLs["reporting"], store, bucket("reports")
	var wh webhook.Config
	load(&wh)
	wh.Common, wh.HTTPAddr, wh.DatabaseURL = common, "127.0.0.1:0", p.DatabaseURLs["webhook"]

	starts := map[string]func(ctx context.Context, log *slog.Logger, on func(string)) error{
		"auth-billing": func(ctx context.Context, l *slog.Logger, on func(string)) error {
			return authbilling.Run(ctx, ab, l, on)
		},
		"customer": func(ctx context.Context, l *slog.Logger, on func(string)) error { return app.Run(ctx, cu, l, on) },
		"document": func(ctx context.Context, l *slog.Logger, on func(string)) error { return document.Run(ctx, do, l, on) },
		"verification": func(ctx context.Context, l *slog.Logger, on func(string)) error {
			return verification.Run(ctx, ve, l, on)
		},
		"reporting": func(ctx context.Context, l *slog.Logger, on func(string)) error { return reporting.Run(ctx, re, l, on) },
		"webhook":   func(ctx context.Context, l *slog.Logger, on func(string)) error { return webhook.Run(ctx, wh, l, on) },
	}
	type started struct {
		name, url string
		err       error
	}
	results := make(chan started, len(starts))
	for name, run := range starts {
		go func() {
			u, err := p.run(ctx, name, run)
			results <- started{name, u, err}
		}()
	}
	var errs []error
	for range starts {
		r := <-results
		if r.err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", r.name, r.err))
		}
		p.URLs[r.name] = r.url
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	p.AuthBillingURL = p.URLs["auth-billing"]
	load(&p.gwCfg)
	g := &p.gwCfg
	g.Common, g.HTTPAddr, g.AdminAddr = common, "127.0.0.1:0", "127.0.0.1:0"
	g.RedisURL, g.RedisPrefix = redistest.URL(), p.RedisPrefix+"gw:"
	g.AuthBillingURL, g.CustomerURL, g.DocumentURL = p.URLs["auth-billing"], p.URLs["customer"], p.URLs["document"]
	g.VerificationURL, g.ReportingURL, g.WebhookURL = p.URLs["verification"], p.URLs["reporting"], p.URLs["webhook"]
	g.UsageInterval = 300 * time.Millisecond
	if p.GatewayURL, _, err = p.StartGateway(ctx, nil); err != nil {
		return nil, err
	}
	return p, nil
}

// StartGateway starts one more gateway instance sharing Redis and Kafka
// with the others; edit may adjust its configuration. It returns the
// instance's URL and a function that stops it.
func (p *Platform) StartGateway(ctx context.Context, edit func(*gateway.Config)) (string, func(), error) {
	cfg := p.gwCfg
	if edit != nil {
		edit(&cfg)
	}
	gctx, cancel := context.WithCancel(p.ctx)
	u, err := p.runIn(ctx, gctx, "gateway", func(ctx context.Context, l *slog.Logger, on func(string)) error {
		return gateway.Run(ctx, cfg, l, on)
	})
	if err != nil {
		cancel()
		return "", nil, err
	}
	return u, cancel, nil
}

func (p *Platform) run(ctx context.Context, name string, run func(context.Context, *slog.Logger, func(string)) error) (string, error) {
	return p.runIn(ctx, p.ctx, name, run)
}

// runIn runs a component until life ends and waits until it is ready.
func (p *Platform) runIn(ctx, life context.Context, name string, run func(context.Context, *slog.Logger, func(string)) error) (string, error) {
	addr := make(chan string, 1)
	done := make(chan error, 1)
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		done <- run(life, logging.NewTo(p.log, name, "warn"), func(a string) { addr <- a })
	}()
	var base string
	select {
	case a := <-addr:
		base = "http://" + a
	case err := <-done:
		return "", fmt.Errorf("exited before listening: %w", err)
	case <-time.After(2 * time.Minute):
		return "", errors.New("did not start within 2 minutes")
	}
	deadline := time.Now().Add(time.Minute)
	for {
		resp, err := p.HTTP.Get(base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return base, nil
			}
		}
		select {
		case err := <-done:
			return "", fmt.Errorf("exited: %w", err)
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return "", errors.New("not ready within a minute")
		}
	}
}

func (p *Platform) connectRedis(ctx context.Context) error {
	c, prefix, cleanup, err := redistest.Open(ctx)
	if err != nil {
		return err
	}
	p.Redis, p.RedisPrefix = c, prefix
	p.cleanup = append(p.cleanup, cleanup)
	return nil
}

// Stop stops every component and removes the run's databases, topics,
// Redis keys and buckets.
func (p *Platform) Stop() {
	p.cancel()
	p.wg.Wait()
	for i := len(p.cleanup) - 1; i >= 0; i-- {
		p.cleanup[i]()
	}
}

func load(cfg any) {
	if err := config.Load(cfg); err != nil {
		panic(err)
	}
}

func strings6(prefix string) string {
	if len(prefix) > 11 {
		return prefix[1:11]
	}
	return prefix
}
