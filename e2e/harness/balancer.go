package harness

import (
	"context"
	"errors"
	"maps"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Balancer stands in for a Kubernetes Service in front of a service's
// replicas: one address that spreads requests round-robin over the
// replicas currently in it. A replica leaves it before it is told to stop,
// as an endpoint leaves a Service when its pod starts terminating.
type Balancer struct {
	URL string

	mu       sync.Mutex
	backends []*url.URL
	served   map[string]int // replica base URL -> requests sent to it
	errs     []string       // why requests failed (each answered 502)
	next     atomic.Uint64
	srv      *http.Server
}

// NewBalancer listens on a loopback port with no replicas in it yet.
func NewBalancer() (*Balancer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	b := &Balancer{URL: "http://" + ln.Addr().String(), served: map[string]int{}}
	proxy := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			if u := b.pick(); u != nil {
				r.SetURL(u)
			}
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			b.mu.Lock()
			b.errs = append(b.errs, r.Method+" "+r.URL.String()+": "+err.Error())
			b.mu.Unlock()
			w.WriteHeader(http.StatusBadGateway)
		},
	}
	b.srv = &http.Server{Handler: proxy, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := b.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			panic(err)
		}
	}()
	return b, nil
}

// pick is the next replica in turn (nil when there is none: the proxy
// then fails with 502, as a Service without endpoints refuses).
func (b *Balancer) pick() *url.URL {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.backends) == 0 {
		return nil
	}
	u := b.backends[int(b.next.Add(1)-1)%len(b.backends)]
	b.served[u.String()]++
	return u
}

// Errors lists the requests that failed to reach a replica and why.
func (b *Balancer) Errors() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.errs)
}

// Served counts the requests sent to each replica (by base URL).
func (b *Balancer) Served() map[string]int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return maps.Clone(b.served)
}

// Add puts a replica (its base URL) into rotation.
func (b *Balancer) Add(base string) error {
	u, err := url.Parse(base)
	if err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.backends = append(b.backends, u)
	return nil
}

// Remove takes a replica out of rotation; requests already sent to it
// go on.
func (b *Balancer) Remove(base string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.backends = slices.DeleteFunc(b.backends, func(u *url.URL) bool { return u.String() == base })
}

// Close stops listening.
func (b *Balancer) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = b.srv.Shutdown(ctx)
}
