package pgdb

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// breakWatch makes a pool check its connections once one of them is
// found broken. A database restart, a failover or a network cut breaks
// every connection of the pool at once, but pgxpool pings a connection
// before handing it out only when it has been idle for over a second: under
// steady load each of the next requests met a dead connection, and even a
// retry met another one. So when a statement fails and leaves its
// connection closed, every connection is pinged before use for
// breakWindow, and after that every connection idle since before the break
// (a dead one is dropped and the next tried, up to a new connection). The
// window covers the connections that were busy when the break came and
// were handed back without their holder noticing. A statement ended by
// its caller's cancellation or deadline, which also closes the
// connection, is not a break: otherwise clients giving up under load would
// add a ping to every query.
type breakWatch struct {
	last atomic.Int64 // when a statement last met a broken connection, Unix ns
}

// breakWindow is how long after a break every connection is pinged.
const breakWindow = time.Second

// watchBreaks installs a breakWatch on cfg.
func watchBreaks(cfg *pgxpool.Config) {
	w := &breakWatch{}
	cfg.ConnConfig.Tracer = w
	cfg.ShouldPing = w.shouldPing
}

// TraceQueryStart implements pgx.QueryTracer.
func (w *breakWatch) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	return ctx
}

// TraceQueryEnd implements pgx.QueryTracer: it runs when a statement
// (BEGIN and COMMIT included) ends, before its connection is released.
func (w *breakWatch) TraceQueryEnd(ctx context.Context, conn *pgx.Conn, d pgx.TraceQueryEndData) {
	if d.Err != nil && conn.IsClosed() && ctx.Err() == nil && !pgconn.Timeout(d.Err) {
		w.last.Store(time.Now().UnixNano())
	}
}

// shouldPing keeps pgxpool's default (idle over a second) and adds every
// connection during breakWindow after the latest break, and those idle
// since before it.
func (w *breakWatch) shouldPing(_ context.Context, p pgxpool.ShouldPingParams) bool {
	if p.IdleDuration > time.Second {
		return true
	}
	last := w.last.Load()
	if last == 0 {
		return false
	}
	now := time.Now()
	return now.UnixNano()-last < int64(breakWindow) || now.Add(-p.IdleDuration).UnixNano() <= last
}
