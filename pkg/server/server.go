// Package server runs a process's long-lived parts (HTTP server, outbox
// relay, consumers) together and shuts them down in order on SIGTERM:
// readiness fails first, in-flight requests drain, then workers stop,
// each finishing the work in hand (see Hand), all within one drain
// deadline.
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/kycfield/kyc/pkg/health"
)

// HTTP describes the HTTP server of a process.
type HTTP struct {
	Addr    string
	Handler http.Handler
	// OnListen is called with the bound address (tests listen on :0).
	OnListen func(addr string)
	// Linger is how long the server goes on serving after ctx ends, with
	// readiness failing, before the drain starts (SHUTDOWN_DELAY).
	Linger time.Duration
}

// Worker is a background loop that returns when its context ends.
type Worker func(ctx context.Context) error

// Run serves h and runs workers until ctx ends or one of them fails.
func Run(ctx context.Context, log *slog.Logger, hl *health.Health, h HTTP, drain time.Duration, workers ...Worker) error {
	ln, err := net.Listen("tcp", h.Addr)
	if err != nil {
		return fmt.Errorf("server: listen %s: %w", h.Addr, err)
	}
	if h.OnListen != nil {
		h.OnListen(ln.Addr().String())
	}
	srv := &http.Server{
		Handler:           h.Handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      120 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
	}
	g, gctx := errgroup.WithContext(ctx)
	dl := &deadline{}
	workCtx, stopWork := context.WithCancel(context.WithValue(context.WithoutCancel(ctx), deadlineKey{}, dl))
	defer stopWork()
	for _, w := range workers {
		g.Go(func() error { return w(workCtx) })
	}
	g.Go(func() error {
		log.Info("listening", "addr", ln.Addr().String())
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	})
	g.Go(func() error {
		<-gctx.Done()
		log.Info("shutting down")
		if hl != nil {
			hl.Drain()
		}
		if ctx.Err() != nil {
			// Told to stop (not a failing part): serve on while load
			// balancers notice the failing readiness.
			time.Sleep(h.Linger)
		}
		end := time.Now().Add(drain)
		dl.at.Store(end.UnixNano())
		sctx, cancel := context.WithDeadline(context.Background(), end)
		defer cancel()
		err := srv.Shutdown(sctx)
		stopWork()
		return err
	})
	err = g.Wait()
	log.Info("stopped")
	return err
}
