package pgdb_test

import (
	"context"
	"net/url"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/faultproxy"
	"github.com/kycfield/kyc/pkg/pgdb"
	"github.com/kycfield/kyc/pkg/pgtest"
)

// proxied opens a pool of n connections to a fresh database through a
// proxy that can cut them, with all n open and idle.
func proxied(t *testing.T, n int) (*pgxpool.Pool, *faultproxy.Proxy) {
	t.Helper()
	u, err := url.Parse(pgtest.CreateDB(t))
	if err != nil {
		t.Fatal(err)
	}
	px := faultproxy.Start(t, u.Host)
	u.Host = px.Addr()
	ctx := context.Background()
	pool, err := pgdb.Open(ctx, u.String(), int32(n))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	conns := make([]*pgxpool.Conn, n)
	for i := range conns {
		if conns[i], err = pool.Acquire(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range conns {
		c.Release()
	}
	return pool, px
}

// When every connection of the pool is cut, the request that meets the
// first dead one fails (callers retry reads: kitserver), and the next one
// gets a live connection rather than the next dead one.
func TestAfterABrokenConnectionTheNextQueryGetsALiveOne(t *testing.T) {
	pool, px := proxied(t, 5)
	ctx := context.Background()
	if n := px.Cut(); n != 5 {
		t.Fatalf("cut %d connections, want the pool's 5", n)
	}
	var one int
	err := pool.QueryRow(ctx, "SELECT 1").Scan(&one)
	if err == nil || !apperr.DependencyDown(err) {
		t.Fatalf("query on a cut connection: %v (dependency down: %v)", err, apperr.DependencyDown(err))
	}
	for i := range 3 {
		if err := pool.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil {
			t.Fatalf("query %d after the break: %v", i+1, err)
		}
	}
}

// With the server refusing connections, the errors are recognised as a
// dependency that is down (503), and the pool recovers when it is back.
func TestARefusingServerIsADependencyDown(t *testing.T) {
	pool, px := proxied(t, 2)
	ctx := context.Background()
	px.Refuse(true)
	px.Cut()
	var one int
	for i := range 3 {
		err := pool.QueryRow(ctx, "SELECT 1").Scan(&one)
		if err == nil || !apperr.DependencyDown(err) {
			t.Fatalf("query %d while refused: %v", i+1, err)
		}
	}
	px.Refuse(false)
	if err := pool.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil {
		t.Fatalf("first query once the server is back: %v", err)
	}
}
