package harness

import (
	"context"
	"fmt"
	"maps"
	"time"

	"github.com/kycfield/kyc/pkg/platform"
	"github.com/kycfield/kyc/stack"
)

// shutdownDelay is SHUTDOWN_DELAY for replicated services: on this
// loopback balancer, leaving rotation takes effect at once; the delay only
// needs to cover a request already on its way.
const shutdownDelay = 500 * time.Millisecond

// replicaDrain is SHUTDOWN_TIMEOUT for replicated services: above the
// 6 s net/http may wait for an unused connection, below the 20 s drain
// bound the replica tests hold a stop to.
const replicaDrain = 10 * time.Second

// Replica is one instance of a service run as several.
type Replica struct {
	URL  string
	inst *stack.Instance
	stop context.CancelFunc
}

// balance puts a Balancer in front of every service asked to run as more
// than one replica; what calls that service (the gateway, reporting's
// reads from verification) is given the balancer's address.
func (p *Platform) balance(o Options) error {
	for name, n := range o.Replicas {
		if n < 2 && !o.BalanceAll {
			continue
		}
		if _, ok := stack.Find(name); !ok || p.envs[name] == nil {
			return fmt.Errorf("harness: no service %q to replicate", name)
		}
		b, err := NewBalancer()
		if err != nil {
			return err
		}
		p.balancers[name] = b
		// As in a pod (see StopReplica): serve on for a moment after
		// SIGTERM, while the balancer stops sending requests here.
		p.envs[name]["SHUTDOWN_DELAY"] = shutdownDelay.String()
		// net/http's Shutdown counts a connection dialled but not yet used
		// (a proxy's spare dial, common under load) as busy until it is
		// 5-6 s old, so a drain bound of 5 s could expire on it alone.
		p.envs[name]["SHUTDOWN_TIMEOUT"] = replicaDrain.String()
	}
	return nil
}

// startReplicas starts the replicas beyond the first of each balanced
// service, one after the other (the first ones have migrated the
// databases), and points the service's URL at its balancer.
func (p *Platform) startReplicas(ctx context.Context, first []*stack.Instance, replicas map[string]int) error {
	for _, inst := range first {
		b := p.balancers[inst.Name]
		if b == nil {
			continue
		}
		p.mu.Lock()
		stop := p.stops[inst.Name]
		p.mu.Unlock()
		p.replicas[inst.Name] = []*Replica{{URL: inst.URL, inst: inst, stop: stop}}
		if err := b.Add(inst.URL); err != nil {
			return err
		}
		s, _ := stack.Find(inst.Name)
		for i := 1; i < replicas[inst.Name]; i++ {
			if err := p.AddReplica(ctx, s); err != nil {
				return err
			}
		}
		p.URLs[inst.Name] = b.URL
	}
	return nil
}

// AddReplica starts one more replica of a balanced service on the same
// stores and puts it into rotation once it is ready.
func (p *Platform) AddReplica(ctx context.Context, s platform.Service) error {
	b := p.balancers[s.Name]
	if b == nil {
		return fmt.Errorf("harness: %s is not run as replicas", s.Name)
	}
	env := maps.Clone(p.envs[s.Name])
	env["HTTP_ADDR"] = "127.0.0.1:0"
	life, stop := context.WithCancel(p.ctx)
	inst, err := stack.Start(ctx, life, s, env, p.logger(s.Name))
	if err != nil {
		stop()
		return err
	}
	p.mu.Lock()
	p.running = append(p.running, inst)
	p.replicas[s.Name] = append(p.replicas[s.Name], &Replica{URL: inst.URL, inst: inst, stop: stop})
	p.mu.Unlock()
	return b.Add(inst.URL)
}

// Served counts the requests the balancer of a service sent to each of
// its replicas, in the order of Replicas.
func (p *Platform) Served(name string) []int {
	b := p.balancers[name]
	if b == nil {
		return nil
	}
	served := b.Served()
	var out []int
	for _, r := range p.Replicas(name) {
		out = append(out, served[r.URL])
	}
	return out
}

// BalancerErrors lists the requests to a balanced service that reached
// no replica (each answered 502), and why.
func (p *Platform) BalancerErrors(name string) []string {
	if b := p.balancers[name]; b != nil {
		return b.Errors()
	}
	return nil
}

// Replicas lists the replicas of a balanced service, stopped ones too.
func (p *Platform) Replicas(name string) []*Replica {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]*Replica(nil), p.replicas[name]...)
}

// StopReplica stops replica i of a balanced service the way Kubernetes
// stops a pod: out of its Service's rotation and SIGTERM together (the
// service fails readiness and serves on for SHUTDOWN_DELAY, then drains:
// in-flight requests finish, consumers and workers finish what they hold). It returns once the replica has
// exited, with how long that took and why it exited.
func (p *Platform) StopReplica(name string, i int) (time.Duration, error) {
	rs := p.Replicas(name)
	if i < 0 || i >= len(rs) {
		return 0, fmt.Errorf("harness: %s has no replica %d", name, i)
	}
	r := rs[i]
	start := time.Now()
	// Both at once, as Kubernetes does: the endpoint leaves the Service
	// while the pod gets SIGTERM; the replica's SHUTDOWN_DELAY covers a
	// request routed to it meanwhile.
	p.balancers[name].Remove(r.URL)
	r.stop()
	err := r.inst.Wait()
	return time.Since(start), err
}
