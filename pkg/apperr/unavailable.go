package apperr

import (
	"context"
	"errors"
	"io"
	"net"
)

// RetryAfterUnavailable is the Retry-After, in seconds, answered with a
// 503 that does not set its own: long enough for a database restart or
// failover to finish most of its work, short enough not to idle a client.
const RetryAfterUnavailable = "1"

// DependencyDown reports whether err's chain shows that a dependency (the
// database, another service, Redis) could not be reached or dropped the
// connection: a refused, reset or timed-out connection, an EOF in the
// middle of a conversation, a server that is shutting down or starting
// up, or a driver saying the request was never sent. Such a failure is
// nobody's bug and the same request may well succeed in a moment, so it
// is answered 503 SERVICE_UNAVAILABLE, not 500.
//
// It recognises the drivers' errors by behaviour rather than by type, so
// that this leaf package does not import them: PostgreSQL errors by their
// SQLSTATE (pgconn.PgError.SQLState), pgx's "request not sent" errors by
// SafeToRetry. The caller's own cancellation or deadline is not a
// dependency being down.
func DependencyDown(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	var st interface{ SQLState() string }
	if errors.As(err, &st) {
		return lostState(st.SQLState())
	}
	var sr interface{ SafeToRetry() bool }
	return errors.As(err, &sr) && sr.SafeToRetry()
}

// lostState reports whether a PostgreSQL SQLSTATE means the server, not
// the statement, is the problem.
func lostState(code string) bool {
	switch {
	case len(code) == 5 && code[:2] == "08": // connection_exception and its subclasses
		return true
	case code == "57P01", code == "57P02", code == "57P03": // admin/crash shutdown, cannot connect now
		return true
	case code == "53300": // too_many_connections
		return true
	}
	return false
}

// Public is the *Error a client is answered with for err: err's own
// *Error, except that an internal error caused by a dependency that is
// down becomes Unavailable; anything else is Internal.
func Public(err error) *Error {
	e, ok := As(err)
	if ok && e.Kind != KindInternal {
		return e
	}
	if DependencyDown(err) {
		return Unavailable("The service", err)
	}
	if ok {
		return e
	}
	return Internal(err)
}
