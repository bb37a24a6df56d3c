// Package health serves the probes: /healthz answers while the process
// runs; /readyz runs every registered dependency check and answers 503
// when one fails or when the process is draining for shutdown.
package health

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Check returns nil when a dependency is usable.
type Check func(ctx context.Context) error

// Health holds the readiness checks.
type Health struct {
	mu       sync.Mutex
	names    []string
	checks   map[string]Check
	draining atomic.Bool
}

// New returns an empty Health.
func New() *Health { return &Health{checks: map[string]Check{}} }

// Add registers a named readiness check.
func (h *Health) Add(name string, c Check) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.names = append(h.names, name)
	h.checks[name] = c
}

// Drain makes /readyz fail so that load balancers stop sending traffic.
func (h *Health) Drain() { h.draining.Store(true) }

// Draining reports whether Drain was called.
func (h *Health) Draining() bool { return h.draining.Load() }

// Register mounts /healthz and /readyz on mux.
func (h *Health) Register(mux *http.ServeMux) {
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		write(w, http.StatusOK, map[string]any{"status": "ok"})
	})
	mux.HandleFunc("GET /readyz", h.ready)
}

func (h *Health) ready(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	h.mu.Lock()
	names := append([]string(nil), h.names...)
	h.mu.Unlock()
	results := make(map[string]string, len(names))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, n := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := "ok"
			if err := h.checks[n](ctx); err != nil {
				res = err.Error()
			}
			mu.Lock()
			results[n] = res
			mu.Unlock()
		}()
	}
	wg.Wait()
	status, code := "ok", http.StatusOK
	for _, res := range results {
		if res != "ok" {
			status, code = "unavailable", http.StatusServiceUnavailable
		}
	}
	if h.draining.Load() {
		status, code = "draining", http.StatusServiceUnavailable
	}
	write(w, code, map[string]any{"status": status, "checks": results})
}

func write(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
