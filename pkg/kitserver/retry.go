package kitserver

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/go-kit/kit/endpoint"

	"github.com/kycfield/kyc/pkg/apperr"
)

// readKey marks the context of a GET or HEAD request.
type readKey struct{}

func markRead(ctx context.Context, r *http.Request) context.Context {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return context.WithValue(ctx, readKey{}, true)
	}
	return ctx
}

// retryRead runs the endpoint of a GET or HEAD through RetryRead.
func retryRead(next endpoint.Endpoint, log *slog.Logger) endpoint.Endpoint {
	return func(ctx context.Context, req any) (resp any, err error) {
		if ctx.Value(readKey{}) == nil {
			return next(ctx, req)
		}
		err = RetryRead(ctx, log, func() (err error) {
			resp, err = next(ctx, req)
			return err
		})
		return resp, err
	}
}

// RetryRead runs read, and runs it a second time when the first attempt
// failed because a dependency dropped or refused its connection
// (apperr.DependencyDown): a database restart breaks every pooled
// connection at once, and the request that meets one of them would fail
// though a new connection would serve it (pgdb's pools check their
// connections after such a break, so the second attempt gets a live one).
// Reads only: a write whose connection broke may have committed. Once
// only: if the second attempt fails too, the dependency is down, and the
// client is answered 503 with Retry-After. NewHandler does this for every
// GET; handlers that write their own response (file downloads) call it.
func RetryRead(ctx context.Context, log *slog.Logger, read func() error) error {
	err := read()
	if err == nil || ctx.Err() != nil || !lostConnection(err) {
		return err
	}
	log.InfoContext(ctx, "retrying a read after a lost connection", "err", err)
	// A break is not instantaneous (a server ends its sessions one by
	// one, a proxy closes them in turn): a retry on the next microsecond
	// can land in the same break.
	t := time.NewTimer(retryPause)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		return err
	}
	return read()
}

// retryPause is how long RetryRead waits before the second attempt.
const retryPause = 20 * time.Millisecond

// lostConnection reports whether err is a failure (not an answer to the
// client, such as a 404, that happens to wrap a connection error) caused
// by a dependency that is down.
func lostConnection(err error) bool {
	if e, ok := apperr.As(err); ok && e.Kind != apperr.KindInternal && e.Kind != apperr.KindUnavailable {
		return false
	}
	return apperr.DependencyDown(err)
}
