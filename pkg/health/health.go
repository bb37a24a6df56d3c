// Package health serves the probes: /healthz answers while the process
// runs; /readyz runs every registered dependency check (its database,
// Kafka, MinIO...) and answers 503 SERVICE_UNAVAILABLE, naming each failing
// dependency in the error details, when one fails or does not answer
// within CheckTimeout, or when the process is draining for shutdown.
package health

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/envelope"
)

// CheckTimeout bounds one /readyz: a dependency that has not answered by
// then counts as down (a probe must answer well within its own timeout).
const CheckTimeout = 2 * time.Second

// Check returns nil when a dependency is usable.
type Check func(ctx context.Context) error

// Health holds the readiness checks.
type Health struct {
	mu       sync.Mutex
	names    []string
	checks   map[string]Check
	draining atomic.Bool
	log      *slog.Logger
	// lastReason is why the last /readyz failed (nil after a success).
	lastReason atomic.Pointer[string]
}

// New returns an empty Health.
func New() *Health { return &Health{checks: map[string]Check{}} }

// SetLog makes /readyz log why it fails (the causes its answer leaves out).
func (h *Health) SetLog(l *slog.Logger) { h.log = l }

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
	ctx, cancel := context.WithTimeout(r.Context(), CheckTimeout)
	defer cancel()
	failed := h.run(ctx)
	w.Header().Set("Cache-Control", "no-store")
	if len(failed) == 0 && !h.draining.Load() {
		h.lastReason.Store(nil)
		envelope.OK(r.Context(), w, http.StatusOK, "", map[string]string{"status": "ready"})
		return
	}
	e := apperr.New(apperr.KindUnavailable, apperr.CodeServiceUnavailable, "The service is not ready")
	var causes []error
	for _, f := range failed {
		msg := "unreachable"
		if errors.Is(f.err, context.DeadlineExceeded) {
			msg = "did not answer within " + CheckTimeout.String()
		}
		e.Details = append(e.Details, apperr.Detail{Field: f.name, Message: msg})
		causes = append(causes, fmt.Errorf("%s: %w", f.name, f.err))
	}
	if h.draining.Load() {
		e.Details = append(e.Details, apperr.Detail{Field: "process", Message: "draining for shutdown"})
	}
	e.Message = "The service is not ready: " + names(e.Details)
	if len(causes) > 0 {
		e.Err = errors.Join(causes...)
	}
	h.warn(r.Context(), e)
	envelope.Fail(r.Context(), w, nil, e)
}

type failure struct {
	name string
	err  error
}

// run runs every check at once and returns the failures, in the order
// the checks were added.
func (h *Health) run(ctx context.Context) []failure {
	h.mu.Lock()
	names := append([]string(nil), h.names...)
	checks := make([]Check, len(names))
	for i, n := range names {
		checks[i] = h.checks[n]
	}
	h.mu.Unlock()
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, c := range checks {
		wg.Go(func() { errs[i] = c(ctx) })
	}
	wg.Wait()
	var out []failure
	for i, err := range errs {
		if err != nil {
			out = append(out, failure{names[i], err})
		}
	}
	return out
}

// warn logs why the service is not ready, with the causes the answer
// leaves out (addresses, driver messages); once per change of reason, so
// that a probe every few seconds does not flood the log.
func (h *Health) warn(ctx context.Context, e *apperr.Error) {
	if h.log == nil {
		return
	}
	reason := e.Message
	if old := h.lastReason.Swap(&reason); old != nil && *old == reason {
		return
	}
	h.log.WarnContext(ctx, "not ready", "reason", reason, "err", e.Err)
}

func names(ds []apperr.Detail) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = d.Field + " " + d.Message
	}
	return strings.Join(parts, ", ")
}

func write(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
