// Package pgtest gives each test (or test package) a fresh PostgreSQL
// database on the real server, migrated and dropped at cleanup, so tests
// run in parallel and repeatedly without sharing state.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kycfield/kyc/pkg/pgdb"
)

// AdminURL is the maintenance database tests create databases from.
func AdminURL() string {
	if u := os.Getenv("KYC_TEST_POSTGRES_URL"); u != "" {
		return u
	}
	// The local stack's credentials (deps.sh sets this password), so a
	// plain `go test` in a package works as `make test` does.
	return "postgres://postgres:postgres@127.0.0.1:5432/postgres?sslmode=disable"
}

// NewDB creates a database, applies sets and returns a pool and its URL.
func NewDB(t testing.TB, sets ...pgdb.Migration) (*pgxpool.Pool, string) {
	t.Helper()
	dbURL := CreateDB(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := pgdb.Migrate(ctx, dbURL, sets...); err != nil {
		t.Fatalf("pgtest: migrate: %v", err)
	}
	pool, err := pgdb.Open(ctx, dbURL, 10)
	if err != nil {
		t.Fatalf("pgtest: open: %v", err)
	}
	t.Cleanup(pool.Close)
	return pool, dbURL
}

// CreateDB creates an empty database dropped at cleanup and returns its URL.
func CreateDB(t testing.TB) string {
	t.Helper()
	u, drop, err := Create(context.Background(), t.Name())
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(drop)
	return u
}

// Create makes an empty database named after label and returns its URL
// and a function that drops it. Harnesses that outlive one test use it.
func Create(ctx context.Context, label string) (string, func(), error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	admin, err := pgx.Connect(ctx, AdminURL())
	if err != nil {
		return "", nil, fmt.Errorf("PostgreSQL is not reachable at %s (run `make test`, which starts it): %w", AdminURL(), err)
	}
	defer admin.Close(ctx)
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "t_" + sanitize(label) + "_" + hex.EncodeToString(b[:])
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		return "", nil, fmt.Errorf("create database: %w", err)
	}
	drop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, AdminURL())
		if err != nil {
			return
		}
		defer c.Close(ctx)
		_, _ = c.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
	}
	u, _ := url.Parse(AdminURL())
	u.Path = "/" + name
	return u.String(), drop, nil
}

func sanitize(s string) string {
	s = strings.ToLower(s)
	var b strings.Builder
	for _, r := range s {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
		if b.Len() >= 30 {
			break
		}
	}
	return b.String()
}
