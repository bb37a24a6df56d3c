package kitserver

import (
	"context"
	"log/slog"
	"net/http"

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

// retryRead runs a read a second time when the first attempt failed
// because a dependency dropped or refused its connection
// (apperr.DependencyDown): a database restart breaks every pooled
// connection at once, and the request that meets one of them would fail
// though a new connection would serve it (pgdb's pools check their idle
// connections after such a break, so the second attempt gets a live one).
// Reads only: a write whose connection broke may have committed. Once
// only: if the second attempt fails too, the dependency is down, and the
// client is answered 503 with Retry-After.
func retryRead(next endpoint.Endpoint, log *slog.Logger) endpoint.Endpoint {
	return func(ctx context.Context, req any) (any, error) {
		resp, err := next(ctx, req)
		if err == nil || ctx.Value(readKey{}) == nil || ctx.Err() != nil || !apperr.DependencyDown(err) {
			return resp, err
		}
		log.InfoContext(ctx, "retrying a read after a lost connection", "err", err)
		return next(ctx, req)
	}
}
