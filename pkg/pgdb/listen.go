package pgdb

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Listener holds a dedicated connection that LISTENs on a channel, so a
// worker can sleep until a transaction's NOTIFY (sent at its commit)
// wakes it, with a poll interval as the fallback.
type Listener struct{ conn *pgxpool.Conn }

// Listen takes a connection from pool and LISTENs on channel.
func Listen(ctx context.Context, pool *pgxpool.Pool, channel string) (*Listener, error) {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{channel}.Sanitize()); err != nil {
		conn.Release()
		return nil, err
	}
	return &Listener{conn: conn}, nil
}

// Conn is the listening connection, for session-level work on the same
// connection (an advisory lock held while listening).
func (l *Listener) Conn() *pgxpool.Conn { return l.conn }

// Wait returns the notification that arrived, or nil after max, whichever
// is first; an error means the connection is broken (or ctx ended).
func (l *Listener) Wait(ctx context.Context, max time.Duration) (*pgconn.Notification, error) {
	wctx, cancel := context.WithTimeout(ctx, max)
	defer cancel()
	n, err := l.conn.Conn().WaitForNotification(wctx)
	if err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
		return nil, nil
	}
	return n, err
}

// Close closes the connection rather than returning it to the pool: it
// is still subscribed, and may hold session locks.
func (l *Listener) Close() {
	_ = l.conn.Conn().Close(context.Background())
	l.conn.Release()
}
