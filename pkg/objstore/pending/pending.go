// Package pending makes an object-store write and the database row that
// refers to it safe against a crash between the two: the object is written
// first (so a row never points at nothing) and announced before it is
// written, so that an object whose row never commits (the process died,
// the database refused, the removal after a failure failed too) is found
// and removed later instead of costing storage for ever.
//
//	pending.Begin(ctx, pool, key)   // before the Put, its own transaction
//	bucket.Put(...)
//	tx: INSERT the row; pending.Done(ctx, tx, key)
//
// A Sweeper in each replica removes the objects of announcements older
// than a grace period; replicas share the work (SKIP LOCKED).
package pending

import (
	"context"
	"embed"
	"io/fs"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kycfield/kyc/pkg/pgdb"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Migration is the pending_objects table, for the services that write
// objects.
func Migration() pgdb.Migration {
	sub, _ := fs.Sub(migrations, "migrations")
	return pgdb.Migration{VersionTable: "pending_objects_schema_version", Files: sub}
}

// Execer is a pool or a transaction.
type Execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// Begin announces that key is about to be written. Call it outside the
// transaction that will record the object, so the announcement survives
// that transaction's rollback.
func Begin(ctx context.Context, db Execer, key string) error {
	_, err := db.Exec(ctx, `INSERT INTO pending_objects (object_key) VALUES ($1)
		ON CONFLICT (object_key) DO UPDATE SET created_at = now()`, key)
	return err
}

// Done withdraws the announcement of key in tx, the transaction that
// records the object's row: from its commit on, the object is referred to.
func Done(ctx context.Context, tx pgx.Tx, key string) error {
	_, err := tx.Exec(ctx, `DELETE FROM pending_objects WHERE object_key = $1`, key)
	return err
}

// Config is the sweeper's deployment setting, embedded in the
// configuration of each service that writes objects.
type Config struct {
	// OrphanGrace is how long a stored object may wait for its row before
	// the sweeper removes it: longer than any upload and its transaction.
	OrphanGrace time.Duration `env:"ORPHAN_GRACE" envDefault:"1h"`
}

// Sweeper returns the sweeper for db and bucket, sweeping every 10 minutes.
func (c Config) Sweeper(db *pgxpool.Pool, remove func(ctx context.Context, key string) error, log *slog.Logger) Sweeper {
	return Sweeper{DB: db, Remove: remove, Grace: c.OrphanGrace, Every: 10 * time.Minute, Log: log}
}

// Sweeper removes objects announced and never recorded.
type Sweeper struct {
	DB *pgxpool.Pool
	// Remove deletes an object; removing one that does not exist (the
	// write never happened, or its cleanup did) succeeds.
	Remove func(ctx context.Context, key string) error
	// Grace is how old an announcement must be before its object counts
	// as orphaned: longer than any write and its row's transaction take.
	Grace time.Duration
	Every time.Duration
	Log   *slog.Logger
}

// Run sweeps every s.Every until ctx ends.
func (s Sweeper) Run(ctx context.Context) error {
	t := time.NewTicker(s.Every)
	defer t.Stop()
	for {
		if n, err := s.Sweep(ctx); err != nil && ctx.Err() == nil {
			s.Log.WarnContext(ctx, "orphan sweep failed; retried next round", "err", err)
		} else if n > 0 {
			s.Log.InfoContext(ctx, "orphaned objects removed", "count", n)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// Sweep removes the orphaned objects of one batch and returns how many;
// an object that cannot be removed now keeps its announcement.
func (s Sweeper) Sweep(ctx context.Context) (int, error) {
	removed := 0
	err := pgx.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT object_key FROM pending_objects WHERE created_at < now() - $1 * interval '1 second'
			ORDER BY created_at LIMIT 100 FOR UPDATE SKIP LOCKED`, s.Grace.Seconds())
		if err != nil {
			return err
		}
		keys, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return err
		}
		for _, k := range keys {
			if err := s.Remove(ctx, k); err != nil {
				return err // the batch's removals so far are redone next round, harmlessly
			}
			if _, err := tx.Exec(ctx, `DELETE FROM pending_objects WHERE object_key = $1`, k); err != nil {
				return err
			}
			removed++
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return removed, nil
}
