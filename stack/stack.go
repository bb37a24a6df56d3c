// Package stack is the platform's one registry of services and the
// launcher that runs any of them, or all of them, in one process: `make
// run` starts the whole platform as one Go process (each service on its
// own port, database and consumers, exactly as in production), the way
// Loki and Mimir run every component with -target=all; the end-to-end
// harness starts the same registry on fresh stores. Production keeps one
// binary per service (services/<name>/cmd/<name>).
package stack

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/pprof"
	"slices"
	"sort"
	"strings"
	"time"

	gateway "github.com/kycfield/kyc/gateway/app"
	"github.com/kycfield/kyc/pkg/platform"
	authbilling "github.com/kycfield/kyc/services/auth-billing/app"
	customer "github.com/kycfield/kyc/services/customer/app"
	document "github.com/kycfield/kyc/services/document/app"
	reporting "github.com/kycfield/kyc/services/reporting/app"
	verification "github.com/kycfield/kyc/services/verification/app"
	webhook "github.com/kycfield/kyc/services/webhook/app"
)

// Services are the services behind the gateway. Adding a service to the
// platform is its folder under services/ and one line here.
var Services = []platform.Service{
	authbilling.Service,
	customer.Service,
	document.Service,
	verification.Service,
	reporting.Service,
	webhook.Service,
}

// Gateway is the public edge in front of Services.
var Gateway = gateway.Service

// All is every component, the gateway last.
func All() []platform.Service { return append(slices.Clone(Services), Gateway) }

// Find returns the component called name.
func Find(name string) (platform.Service, bool) {
	i := slices.IndexFunc(All(), func(s platform.Service) bool { return s.Name == name })
	if i < 0 {
		return platform.Service{}, false
	}
	return All()[i], true
}

// Upstreams renders service URLs as the gateway's UPSTREAMS setting.
func Upstreams(urls map[string]string) string {
	parts := make([]string, 0, len(urls))
	for name, u := range urls {
		parts = append(parts, name+"="+u)
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

// Instance is a component running in this process.
type Instance struct {
	Name string
	URL  string // http://host:port it listens on
	done chan struct{}
	err  error
}

// Wait blocks until the instance has stopped and returns why.
func (i *Instance) Wait() error { <-i.done; return i.err }

// Done is closed when the instance has stopped.
func (i *Instance) Done() <-chan struct{} { return i.done }

// Start runs s with environ until life ends, and returns once it answers
// /readyz, or with the reason it did not (it exited, ctx ended, or it was
// not ready within two minutes).
func Start(ctx, life context.Context, s platform.Service, environ map[string]string, log *slog.Logger) (*Instance, error) {
	inst := &Instance{Name: s.Name, done: make(chan struct{})}
	addr := make(chan string, 1)
	go func() {
		defer close(inst.done)
		// The label follows every goroutine the component starts, so that
		// a CPU profile of a process running several splits by component
		// (go tool pprof -tags).
		pprof.Do(life, pprof.Labels("component", s.Name), func(life context.Context) {
			inst.err = s.Run(life, environ, log, func(a string) { addr <- a })
		})
	}()
	select {
	case a := <-addr:
		inst.URL = "http://" + a
	case <-inst.done:
		return nil, fmt.Errorf("%s exited before listening: %w", s.Name, inst.err)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if err := waitReady(ctx, inst); err != nil {
		return nil, fmt.Errorf("%s: %w", s.Name, err)
	}
	return inst, nil
}

func waitReady(ctx context.Context, inst *Instance) error {
	client := &http.Client{Timeout: 2 * time.Second}
	deadline := time.After(2 * time.Minute)
	for {
		resp, err := client.Get(inst.URL + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-inst.done:
			return fmt.Errorf("exited before ready: %w", inst.err)
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline:
			return errors.New("not ready within 2 minutes")
		case <-time.After(50 * time.Millisecond):
		}
	}
}
