package stack

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"

	"github.com/kycfield/kyc/pkg/platform"
)

// perInstance are the settings that differ between the services of one
// process; the process environment's values of them are not handed on.
var perInstance = []string{"HTTP_ADDR", "DATABASE_URL", "MINIO_BUCKET"}

// Options say what Run starts.
type Options struct {
	// Targets names the components to run; empty means all of them.
	Targets []string
	// Environ is the process environment: every component reads it, except
	// perInstance settings, which come from the component's descriptor.
	// A DATABASE_URL in it names the server: each service gets its own
	// database there.
	Environ map[string]string
	// Override, when set, gives a component settings that win over all
	// others (tests: ports, fresh databases and buckets).
	Override func(platform.Service) map[string]string
	// Log returns the logger of a component.
	Log func(name string) *slog.Logger
	// Ready, when set, is called once every target answers /readyz, with
	// the URL of each.
	Ready func(urls map[string]string)
}

// Run starts the targets (the services together, then the gateway in
// front of them) and runs until ctx ends or one of them fails; then it
// stops them all and returns the first failure.
func Run(ctx context.Context, o Options) error {
	targets, err := selectTargets(o.Targets)
	if err != nil {
		return err
	}
	life, stop := context.WithCancel(ctx)
	defer stop()
	shared := maps.Clone(o.Environ)
	for _, k := range perInstance {
		delete(shared, k)
	}
	urls := map[string]string{}
	var running []*Instance
	defer func() {
		stop()
		for _, inst := range running {
			_ = inst.Wait()
		}
	}()
	services, gw := split(targets)
	started, err := StartAll(ctx, func(string) context.Context { return life }, services,
		func(s platform.Service) map[string]string { return o.instanceEnv(s, shared, nil) }, o.Log)
	running = append(running, started...)
	if err != nil {
		return err
	}
	for _, inst := range started {
		urls[inst.Name] = inst.URL
	}
	if gw != nil {
		ups := map[string]string{}
		for _, s := range Services {
			ups[s.Name] = "http://" + s.Addr()
		}
		for name, u := range urls {
			ups[name] = u
		}
		inst, err := Start(ctx, life, *gw, o.instanceEnv(*gw, shared, map[string]string{"UPSTREAMS": Upstreams(ups)}), o.Log(gw.Name))
		if err != nil {
			return err
		}
		running = append(running, inst)
		urls[inst.Name] = inst.URL
	}
	if o.Ready != nil {
		o.Ready(urls)
	}
	return firstExit(ctx, running)
}

func selectTargets(targets []string) ([]platform.Service, error) {
	if len(targets) == 0 || slices.Equal(targets, []string{"all"}) {
		return All(), nil
	}
	var out []platform.Service
	for _, n := range targets {
		s, ok := Find(n)
		if !ok {
			return nil, fmt.Errorf("unknown target %q (want all, or names from: %s)", n, names(All()))
		}
		out = append(out, s)
	}
	return out, nil
}

func names(ss []platform.Service) string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.Name
	}
	return strings.Join(out, ", ")
}

func split(targets []platform.Service) ([]platform.Service, *platform.Service) {
	var services []platform.Service
	var gw *platform.Service
	for _, s := range targets {
		if s.Name == Gateway.Name {
			gw = &s
			continue
		}
		services = append(services, s)
	}
	return services, gw
}

// instanceEnv is what one component of the process reads: its defaults,
// the shared environment, its database on the configured server, extra,
// then the caller's overrides.
func (o Options) instanceEnv(s platform.Service, shared, extra map[string]string) map[string]string {
	own := map[string]string{}
	if server, ok := o.Environ["DATABASE_URL"]; ok && s.Database != "" {
		own["DATABASE_URL"], _ = s.DatabaseURL(server)
	}
	var override map[string]string
	if o.Override != nil {
		override = o.Override(s)
	}
	return s.Environ(shared, own, extra, override)
}

// StartAll starts services concurrently, each with env(service) for the
// life of life(name), and waits until all are ready; it returns those that
// started, and why the others did not.
func StartAll(ctx context.Context, life func(name string) context.Context, services []platform.Service,
	env func(platform.Service) map[string]string, log func(string) *slog.Logger) ([]*Instance, error) {
	type result struct {
		inst *Instance
		err  error
	}
	results := make(chan result, len(services))
	for _, s := range services {
		go func() {
			inst, err := Start(ctx, life(s.Name), s, env(s), log(s.Name))
			results <- result{inst, err}
		}()
	}
	var started []*Instance
	var errs []error
	for range services {
		r := <-results
		if r.err != nil {
			errs = append(errs, r.err)
			continue
		}
		started = append(started, r.inst)
	}
	return started, errors.Join(errs...)
}

// firstExit waits until ctx ends (nil) or a component stops on its own
// (its error, or a note that it stopped).
func firstExit(ctx context.Context, running []*Instance) error {
	exited := make(chan *Instance, len(running))
	for _, inst := range running {
		go func() { <-inst.Done(); exited <- inst }()
	}
	select {
	case <-ctx.Done():
		return nil
	case inst := <-exited:
		if err := inst.Wait(); err != nil {
			return fmt.Errorf("%s failed: %w", inst.Name, err)
		}
		return fmt.Errorf("%s stopped", inst.Name)
	}
}
