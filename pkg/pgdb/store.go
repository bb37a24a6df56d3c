package pgdb

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kycfield/kyc/pkg/apperr"
)

// EmitFunc writes change c in tx, so that it is published if and only if
// tx commits (outbox.Emitter makes one).
type EmitFunc[C any] func(ctx context.Context, tx pgx.Tx, c C) error

// Store is the transactional skeleton every service's repository shares.
// T is the domain's view of a transaction (its Tx interface), which wrap
// makes from an open pgx.Tx; C is the domain's change, which emit writes
// in the same transaction as the rows it describes. A service's Store
// embeds it, so that Atomic and Within have the domain's own signatures.
type Store[T, C any] struct {
	pool      *pgxpool.Pool
	wrap      func(pgx.Tx) T
	emit      EmitFunc[C]
	translate func(error) error
}

// NewStore returns a Store on pool. Errors are translated by Translate
// unless TranslateWith says otherwise.
func NewStore[T, C any](pool *pgxpool.Pool, wrap func(pgx.Tx) T, emit EmitFunc[C]) *Store[T, C] {
	return &Store[T, C]{pool: pool, wrap: wrap, emit: emit, translate: Translate}
}

// TranslateWith makes the store turn failures into domain errors with f
// (a service that maps its constraint names, say) and returns the store.
func (s *Store[T, C]) TranslateWith(f func(error) error) *Store[T, C] {
	s.translate = f
	return s
}

// Pool is the store's pool, for reads outside a transaction.
func (s *Store[T, C]) Pool() *pgxpool.Pool { return s.pool }

// Atomic runs fn in a transaction, committed if fn returns nil; the
// error is translated.
func (s *Store[T, C]) Atomic(ctx context.Context, fn func(T) error) error {
	return s.Transact(ctx, func(tx pgx.Tx) error { return fn(s.wrap(tx)) })
}

// Transact is Atomic for repository methods that work on the pgx
// transaction itself.
func (s *Store[T, C]) Transact(ctx context.Context, fn func(pgx.Tx) error) error {
	return s.translate(pgx.BeginFunc(ctx, s.pool, fn))
}

// Within adapts a transaction opened elsewhere (an inbox consumer's) to
// the domain's view of it.
func (s *Store[T, C]) Within(tx pgx.Tx) T { return s.wrap(tx) }

// Emit writes change c in tx.
func (s *Store[T, C]) Emit(ctx context.Context, tx pgx.Tx, c C) error { return s.emit(ctx, tx, c) }

// Translate is the default error translation of a repository: nil stays
// nil, a domain error (apperr) passes through, and anything else becomes
// an internal error that keeps the cause for the log.
func Translate(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := apperr.As(err); ok {
		return err
	}
	return apperr.Internal(err)
}
