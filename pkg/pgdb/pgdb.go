// Package pgdb opens a service's PostgreSQL pool and applies its embedded,
// numbered, forward-only migrations. The same Migrate runs in the binary at
// start-up, in tests and in the Kubernetes migration Job; concurrent runs
// are serialised by tern's advisory lock.
package pgdb

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/tern/v2/migrate"
)

// Open connects a pool and checks it answers within the context deadline.
func Open(ctx context.Context, url string, maxConns int32) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("pgdb: parse url: %w", err)
	}
	if maxConns > 0 {
		cfg.MaxConns = maxConns
	}
	cfg.MaxConnIdleTime = 5 * time.Minute
	watchBreaks(cfg)
	cfg.AfterConnect = func(_ context.Context, c *pgx.Conn) error {
		// Scan timestamps as UTC whatever the process's local zone is.
		c.TypeMap().RegisterType(&pgtype.Type{Name: "timestamptz", OID: pgtype.TimestamptzOID, Codec: &pgtype.TimestamptzCodec{ScanLocation: time.UTC}})
		return nil
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("pgdb: connect: %w", err)
	}
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := pool.Ping(pctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("pgdb: ping: %w", err)
	}
	return pool, nil
}

// Migration is one set of migrations with its own version table, so that
// shared kit packages (outbox, inbox) version their tables independently
// of the service's own schema.
type Migration struct {
	VersionTable string
	Files        fs.FS
	// Steps are the migrations written in Go, by the name a numbered
	// file gives them (see GoStep): work SQL cannot do as the service
	// does it, such as filling a column with keys the service computes.
	Steps map[string]Step
}

// Migrate applies every set in order on a dedicated connection; a set
// without files (the zero Migration) is skipped.
func Migrate(ctx context.Context, url string, sets ...Migration) error {
	conn, err := pgx.Connect(ctx, url)
	if isMissingDatabase(err) {
		if err = createDatabase(ctx, url); err == nil {
			conn, err = pgx.Connect(ctx, url)
		}
	}
	if err != nil {
		return fmt.Errorf("pgdb: migrate connect: %w", err)
	}
	defer conn.Close(context.Background())
	for _, s := range sets {
		if s.Files == nil {
			continue // a service without tables of its own
		}
		m, err := migrate.NewMigrator(ctx, conn, s.VersionTable)
		if err != nil {
			return fmt.Errorf("pgdb: migrator %s: %w", s.VersionTable, err)
		}
		if err := m.LoadMigrations(s.Files); err != nil {
			return fmt.Errorf("pgdb: load migrations %s: %w", s.VersionTable, err)
		}
		if err := bindSteps(m, s.Steps); err != nil {
			return fmt.Errorf("pgdb: migrations %s: %w", s.VersionTable, err)
		}
		if err := m.Migrate(ctx); err != nil {
			return fmt.Errorf("pgdb: migrate %s: %w", s.VersionTable, err)
		}
	}
	return nil
}

func isMissingDatabase(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "3D000" // invalid_catalog_name
}

// createDatabase creates the database url names, through the server's
// maintenance database. A service owns its database, so it makes it
// where it may (the local stack, a fresh compose volume); where the role
// lacks CREATEDB (managed Postgres) the error says what to create.
func createDatabase(ctx context.Context, url string) error {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return err
	}
	name := cfg.Database
	cfg.Database = "postgres"
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("pgdb: database %s is missing and the server's postgres database is unreachable: %w", name, err)
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "42P04" { // duplicate_database: a replica won the race
		return nil
	}
	if err != nil {
		return fmt.Errorf("pgdb: database %s is missing and could not be created (create it, or grant CREATEDB): %w", name, err)
	}
	return nil
}

// UniqueViolation returns the violated constraint's name when err is a
// unique violation.
func UniqueViolation(err error) (string, bool) {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "23505" {
		return pe.ConstraintName, true
	}
	return "", false
}

// IsNoRows reports whether err means the query matched nothing.
func IsNoRows(err error) bool { return errors.Is(err, pgx.ErrNoRows) }
