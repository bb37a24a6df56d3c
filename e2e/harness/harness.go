// Package harness starts the whole platform in one process for end-to-end
// tests and benchmarks: every service of the registry (stack.Services) and
// the gateway on loopback ports, each service on a fresh PostgreSQL
// database, all of them on one Kafka topic prefix, one Redis key prefix
// and fresh MinIO buckets, so that several runs share the real servers
// without seeing each other.
package harness

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	gateway "github.com/kycfield/kyc/gateway/app"
	"github.com/kycfield/kyc/pkg/config"
	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/pkg/platform"
	"github.com/kycfield/kyc/stack"
)

// Platform is a running platform.
type Platform struct {
	*Stores
	GatewayURL     string
	AuthBillingURL string
	URLs           map[string]string // service name -> base URL
	HTTP           *http.Client

	gwEnv   map[string]string
	envs    map[string]map[string]string // service name -> its environment
	ctx     context.Context
	cancel  context.CancelFunc
	mu      sync.Mutex
	stops   map[string]context.CancelFunc // service name -> stops it
	running []*stack.Instance
	log     io.Writer
	// replicas and balancers exist for the services run as several
	// replicas (Options.Replicas).
	replicas  map[string][]*Replica
	balancers map[string]*Balancer
}

// Options change what StartWith brings up.
type Options struct {
	// Replicas runs that many instances of the named services (one when
	// absent), all on the service's one database, bucket and consumer
	// groups, behind a round-robin Balancer that the gateway (and any
	// other caller) reaches them through.
	Replicas map[string]int
	// Databases gives the named services an existing database instead
	// of a fresh one (benchmarks on seeded data); the run neither
	// empties nor drops it.
	Databases map[string]string
	// BalanceAll puts the balancer in front of every service named in
	// Replicas, one replica included, so that one and several replicas
	// are compared through the same hops (benchmarks).
	BalanceAll bool
}

// Start brings the platform up: every service of the registry on its own
// fresh stores, then the gateway. Stop it with Stop.
func Start(ctx context.Context) (p *Platform, err error) { return StartWith(ctx, Options{}) }

// StartWith is Start with options.
func StartWith(ctx context.Context, o Options) (p *Platform, err error) {
	p = &Platform{URLs: map[string]string{}, HTTP: &http.Client{Timeout: 30 * time.Second}, log: io.Discard,
		envs: map[string]map[string]string{}, stops: map[string]context.CancelFunc{},
		replicas: map[string][]*Replica{}, balancers: map[string]*Balancer{}}
	if os.Getenv("KYC_TEST_LOG") != "" {
		p.log = os.Stderr
	}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	self := p // the error returns set p to nil
	defer func() {
		if err != nil {
			self.Stop()
		}
	}()
	if p.Stores, err = NewStores(ctx); err != nil {
		return nil, err
	}
	maps.Copy(p.DatabaseURLs, o.Databases)
	shared := p.Shared()
	for _, s := range stack.Services {
		p.envs[s.Name] = s.Environ(shared, p.Override(s))
	}
	if err := p.balance(o); err != nil {
		return nil, err
	}
	for _, pin := range []struct {
		service, setting string
		readers          []string
	}{
		{"verification", "VERIFICATION_URL", []string{"reporting"}},
		{"customer", "CUSTOMER_URL", []string{"reporting", "document", "verification"}},
	} {
		if err := p.pin(pin.service, pin.setting, pin.readers...); err != nil {
			return nil, err
		}
	}
	started, err := stack.StartAll(ctx, p.life, stack.Services, func(s platform.Service) map[string]string { return p.envs[s.Name] }, p.logger)
	p.running = append(p.running, started...)
	if err != nil {
		return nil, err
	}
	for _, inst := range started {
		p.URLs[inst.Name] = inst.URL
	}
	if err := p.startReplicas(ctx, started, o.Replicas); err != nil {
		return nil, err
	}
	p.AuthBillingURL = p.URLs["auth-billing"]
	p.gwEnv = stack.Gateway.Environ(shared, p.Override(stack.Gateway), map[string]string{"UPSTREAMS": stack.Upstreams(p.URLs)})
	if p.GatewayURL, _, err = p.StartGateway(ctx, nil); err != nil {
		return nil, err
	}
	return p, nil
}

// pin gives a service a free port chosen up front and tells its readers
// where it is: reporting calls verification (evidence photos,
// VERIFICATION_URL), and reporting, document and verification call
// customer (is the customer still there, CUSTOMER_URL) directly; every
// service otherwise binds port 0.
func (p *Platform) pin(service, setting string, readers ...string) error {
	url := ""
	if b := p.balancers[service]; b != nil {
		url = b.URL
	} else {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		addr := l.Addr().String()
		_ = l.Close()
		p.envs[service]["HTTP_ADDR"] = addr
		url = "http://" + addr
	}
	for _, r := range readers {
		p.envs[r][setting] = url
	}
	return nil
}

func (p *Platform) logger(name string) *slog.Logger { return logging.NewTo(p.log, name, "warn") }

// life is the context a service runs in: the platform's, and its own stop.
func (p *Platform) life(name string) context.Context {
	ctx, stop := context.WithCancel(p.ctx)
	p.mu.Lock()
	p.stops[name] = stop
	p.mu.Unlock()
	return ctx
}

// Restart stops one service (as SIGTERM would: it drains and closes),
// waits until it has stopped, and starts it again on the same address,
// database, bucket and topics. kill, when set, runs while it is down.
func (p *Platform) Restart(ctx context.Context, name string, kill func()) error {
	p.mu.Lock()
	stop := p.stops[name]
	var inst *stack.Instance
	for _, i := range p.running {
		if i.Name == name && i.URL == p.URLs[name] {
			inst = i
		}
	}
	p.mu.Unlock()
	s, ok := stack.Find(name)
	if stop == nil || inst == nil || !ok {
		return fmt.Errorf("harness: no running %s", name)
	}
	stop()
	_ = inst.Wait()
	if kill != nil {
		kill()
	}
	env := maps.Clone(p.envs[name])
	env["HTTP_ADDR"] = strings.TrimPrefix(inst.URL, "http://") // the gateway knows it there
	started, err := stack.Start(ctx, p.life(name), s, env, p.logger(name))
	if err != nil {
		return err
	}
	p.mu.Lock()
	p.running = append(p.running, started)
	p.mu.Unlock()
	return nil
}

// StartGateway starts one more gateway instance sharing Redis and Kafka
// with the others; edit may adjust its configuration. It returns the
// instance's URL and a function that stops it.
func (p *Platform) StartGateway(ctx context.Context, edit func(*gateway.Config)) (string, func(), error) {
	var cfg gateway.Config
	if err := config.LoadFrom(&cfg, p.gwEnv); err != nil {
		return "", nil, err
	}
	if edit != nil {
		edit(&cfg)
	}
	gw := stack.Gateway
	gw.Run = func(ctx context.Context, _ map[string]string, log *slog.Logger, on func(string)) error {
		return gateway.Run(ctx, cfg, log, on)
	}
	gctx, cancel := context.WithCancel(p.ctx)
	inst, err := stack.Start(ctx, gctx, gw, nil, p.logger(gw.Name))
	if err != nil {
		cancel()
		return "", nil, err
	}
	p.mu.Lock()
	p.running = append(p.running, inst)
	p.mu.Unlock()
	return inst.URL, cancel, nil
}

// Stop stops every component and removes the run's stores.
func (p *Platform) Stop() {
	p.cancel()
	for _, inst := range p.running {
		_ = inst.Wait()
	}
	for _, b := range p.balancers {
		b.Close()
	}
	if p.Stores != nil {
		p.Stores.Close()
	}
}
