package e2e

import (
	"context"
	"log/slog"
	"maps"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kycfield/kyc/e2e/harness"
	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/pkg/platform"
	"github.com/kycfield/kyc/stack"
)

// startStack runs stack.Run, what `make run` runs, on fresh stores with
// extra settings per component, and reports the URLs it announced as
// ready (nil if it never was) and the channel its result arrives on.
func startStack(t *testing.T, ctx context.Context, targets []string, extra func(platform.Service) map[string]string) (map[string]string, <-chan error) {
	t.Helper()
	stores, err := harness.NewStores(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stores.Close)
	ready := make(chan map[string]string, 1)
	done := make(chan error, 1)
	go func() {
		done <- stack.Run(ctx, stack.Options{
			Targets: targets,
			Environ: stores.Shared(),
			Override: func(s platform.Service) map[string]string {
				o := stores.Override(s)
				if extra != nil {
					maps.Copy(o, extra(s))
				}
				return o
			},
			Log:   func(string) *slog.Logger { return logging.Discard() },
			Ready: func(urls map[string]string) { ready <- urls },
		})
	}()
	select {
	case urls := <-ready:
		return urls, done
	case err := <-done:
		done <- err // hand it back to the caller
		return nil, done
	case <-time.After(2 * time.Minute):
		t.Fatal("the platform did not come up within 2 minutes")
		return nil, nil
	}
}

func TestAllInOneRunsEveryServiceBehindTheGateway(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	urls, done := startStack(t, ctx, []string{"all"}, nil)
	if urls == nil {
		t.Fatalf("did not start: %v", <-done)
	}
	for _, s := range stack.All() {
		resp, err := http.Get(urls[s.Name] + "/readyz")
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s /readyz: %d", s.Name, resp.StatusCode)
		}
	}
	// The gateway reaches auth-billing (key) and customer (create): its
	// upstreams came from the registry.
	p := &harness.Platform{GatewayURL: urls["gateway"], AuthBillingURL: urls["auth-billing"], HTTP: P.HTTP}
	_, key := p.NewKey(t, p.NewOrg(t, "growth"), "test")
	if r := p.API(t, "POST", "/api/v1/customers", key, newCustomer(nil)); r.Status != http.StatusCreated {
		t.Fatalf("create through the all-in-one gateway: %d %s", r.Status, r.Body)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run after Ctrl-C: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Run did not stop within a minute of its context ending")
	}
	if _, err := http.Get(urls["customer"] + "/healthz"); err == nil {
		t.Error("customer still answers after Run returned")
	}
}

func TestAllInOneStopsEverythingWhenAComponentFails(t *testing.T) {
	urls, done := startStack(t, context.Background(), []string{"customer", "webhook"}, func(s platform.Service) map[string]string {
		if s.Name == "webhook" { // nothing listens on port 1
			return map[string]string{"DATABASE_URL": "postgres://postgres:postgres@127.0.0.1:1/kyc_webhook?sslmode=disable&connect_timeout=2"}
		}
		return nil
	})
	if urls != nil {
		t.Fatalf("announced ready with a component down: %v", urls)
	}
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "webhook") {
			t.Fatalf("want an error naming webhook, got %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Run kept going with a failed component")
	}
}
