package pgdb

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// breakWatch makes a pool check its idle connections once one of them is
// found broken. A database restart, a failover or a network cut breaks
// every connection of the pool at once, but pgxpool pings a connection
// before handing it out only when it has been idle for over a second: under
// steady load each of the next requests met a dead connection, and even a
// retry met another one. So when a connection comes back to the pool
// closed, every connection idle since before that moment is pinged before
// its next use (a dead one is dropped and the next tried, up to a new
// connection); connections used since cost nothing. A connection closed
// for another reason (a cancelled query) only costs those pings.
type breakWatch struct {
	last atomic.Int64 // when a connection last came back broken, Unix ns
}

// watchBreaks installs a breakWatch on cfg.
func watchBreaks(cfg *pgxpool.Config) {
	w := &breakWatch{}
	cfg.ConnConfig.Tracer = w // pgxpool calls TraceRelease on it
	cfg.ShouldPing = w.shouldPing
}

// TraceRelease implements pgxpool.ReleaseTracer; it runs at the start of
// every release, before the pool drops a closed connection.
func (w *breakWatch) TraceRelease(_ *pgxpool.Pool, d pgxpool.TraceReleaseData) {
	if d.Conn.IsClosed() {
		w.last.Store(time.Now().UnixNano())
	}
}

// TraceQueryStart implements pgx.QueryTracer, which a connection's Tracer
// must be; queries are not traced.
func (w *breakWatch) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	return ctx
}

// TraceQueryEnd implements pgx.QueryTracer.
func (w *breakWatch) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// shouldPing keeps pgxpool's default (idle over a second) and adds the
// connections that have been idle since before the latest break.
func (w *breakWatch) shouldPing(_ context.Context, p pgxpool.ShouldPingParams) bool {
	if p.IdleDuration > time.Second {
		return true
	}
	last := w.last.Load()
	return last != 0 && time.Now().Add(-p.IdleDuration).UnixNano() <= last
}
