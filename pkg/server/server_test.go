package server_test

import (
	"context"
	"io"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kycfield/kyc/pkg/eventually"
	"github.com/kycfield/kyc/pkg/health"
	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/pkg/server"
)

// On SIGTERM the process stops being ready at once, yet the request in
// flight is answered and the worker finishes the job it holds (under
// Hand) before Run returns; a job past the drain deadline is cut off.
func TestShutdownDrainsRequestsAndWorkInHand(t *testing.T) {
	t.Parallel()
	hl := health.New()
	mux := http.NewServeMux()
	hl.Register(mux)
	requestIn := make(chan struct{})
	finishRequest := make(chan struct{})
	mux.HandleFunc("GET /slow", func(w http.ResponseWriter, r *http.Request) {
		close(requestIn)
		<-finishRequest
		_, _ = io.WriteString(w, "done")
	})
	jobIn := make(chan struct{})
	var jobFinished, overdueCut atomic.Bool
	worker := func(ctx context.Context) error {
		hand, done := server.Hand(ctx)
		defer done()
		close(jobIn)
		<-ctx.Done() // told to stop with the job in hand
		select {
		case <-time.After(300 * time.Millisecond): // the rest of the job
			jobFinished.Store(hand.Err() == nil)
		case <-hand.Done():
		}
		return nil
	}
	overdue := func(ctx context.Context) error {
		hand, done := server.Hand(ctx)
		defer done()
		<-hand.Done() // a job that never ends on its own
		overdueCut.Store(true)
		return nil
	}
	ctx, sigterm := context.WithCancel(context.Background())
	addr := make(chan string, 1)
	stopped := make(chan error, 1)
	go func() {
		stopped <- server.Run(ctx, logging.Discard(), hl, server.HTTP{Addr: "127.0.0.1:0", Handler: mux,
			OnListen: func(a string) { addr <- a }}, 2*time.Second, worker, overdue)
	}()
	base := "http://" + <-addr
	answered := make(chan string, 1)
	go func() {
		resp, err := http.Get(base + "/slow")
		if err != nil {
			answered <- err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		answered <- string(b)
	}()
	<-requestIn
	<-jobIn
	if code := get(t, base+"/readyz"); code != http.StatusOK {
		t.Fatalf("readyz before SIGTERM: %d", code)
	}
	sigterm()
	eventually.True(t, 5*time.Second, "draining", hl.Draining)
	close(finishRequest)
	if got := <-answered; got != "done" {
		t.Fatalf("the request in flight got %q", got)
	}
	select {
	case err := <-stopped:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after the drain deadline")
	}
	if !jobFinished.Load() {
		t.Error("the worker's job in hand was cut short")
	}
	if !overdueCut.Load() {
		t.Error("a job past the drain deadline was not cut off")
	}
}

func get(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// With a linger (SHUTDOWN_DELAY), a process told to stop goes on serving
// for that long with /readyz failing, so that a request routed to it
// before the load balancer noticed is answered rather than refused.
func TestLingerServesWithReadinessFailing(t *testing.T) {
	t.Parallel()
	hl := health.New()
	mux := http.NewServeMux()
	hl.Register(mux)
	mux.HandleFunc("GET /hello", func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "hello") })
	ctx, sigterm := context.WithCancel(context.Background())
	addr := make(chan string, 1)
	stopped := make(chan error, 1)
	go func() {
		stopped <- server.Run(ctx, logging.Discard(), hl, server.HTTP{Addr: "127.0.0.1:0", Handler: mux,
			OnListen: func(a string) { addr <- a }, Linger: time.Second}, 2*time.Second)
	}()
	base := "http://" + <-addr
	sigterm()
	eventually.True(t, 5*time.Second, "draining", hl.Draining)
	if code := get(t, base+"/readyz"); code != http.StatusServiceUnavailable {
		t.Errorf("readyz while lingering: %d", code)
	}
	if code := get(t, base+"/hello"); code != http.StatusOK {
		t.Errorf("a request while lingering: %d", code)
	}
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
	if _, err := http.Get(base + "/hello"); err == nil {
		t.Error("still serving after the linger and the drain")
	}
}
