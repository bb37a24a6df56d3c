package pgdb

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// closedConn is a connection to the local server, closed.
func closedConn(t *testing.T) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(context.Background(), "postgres://postgres:postgres@127.0.0.1:5432/postgres?sslmode=disable")
	if err != nil {
		t.Skip("no local PostgreSQL:", err)
	}
	_ = c.Close(context.Background())
	return c
}

// Only a statement that broke its connection on its own makes the pool
// ping; one its caller cancelled does not, nor does an error that left
// the connection open.
func TestBreakWatchPingsOnlyAfterABreak(t *testing.T) {
	busy := pgxpool.ShouldPingParams{IdleDuration: time.Millisecond}
	w := &breakWatch{}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	w.TraceQueryEnd(cancelled, closedConn(t), pgx.TraceQueryEndData{Err: context.Canceled})
	if w.shouldPing(context.Background(), busy) {
		t.Fatal("a cancelled statement made the pool ping")
	}
	if !w.shouldPing(context.Background(), pgxpool.ShouldPingParams{IdleDuration: 2 * time.Second}) {
		t.Fatal("pgxpool's own rule (idle over a second) is lost")
	}
	w.TraceQueryEnd(context.Background(), closedConn(t), pgx.TraceQueryEndData{Err: io.ErrUnexpectedEOF})
	if !w.shouldPing(context.Background(), busy) {
		t.Fatal("no ping right after a broken connection")
	}
}
