package apperr

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"
)

// pgError stands in for pgconn.PgError, which this package must not import.
type pgError struct{ code string }

func (e *pgError) Error() string    { return "ERROR (SQLSTATE " + e.code + ")" }
func (e *pgError) SQLState() string { return e.code }

// notSent stands in for pgx's "conn closed" (connLockError).
type notSent struct{}

func (notSent) Error() string     { return "conn closed" }
func (notSent) SafeToRetry() bool { return true }

func TestDependencyDown(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	cases := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"a bug", errors.New("index out of range"), false},
		{"refused", fmt.Errorf("failed to connect: %w", refused), true},
		{"reset", &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}, true},
		{"EOF mid-query", io.ErrUnexpectedEOF, true},
		{"wrapped EOF", fmt.Errorf("query: %w", io.EOF), true},
		{"terminated by the administrator", &pgError{"57P01"}, true},
		{"starting up", fmt.Errorf("connect: %w", &pgError{"57P03"}), true},
		{"connection failure", &pgError{"08006"}, true},
		{"too many connections", &pgError{"53300"}, true},
		{"invalid byte sequence", &pgError{"22021"}, false},
		{"unique violation", &pgError{"23505"}, false},
		{"request not sent", notSent{}, true},
		{"the caller went away", fmt.Errorf("query: %w", context.Canceled), false},
		{"the caller's deadline", context.DeadlineExceeded, false},
		{"wrapped in Internal", Internal(io.ErrUnexpectedEOF), true},
	}
	for _, c := range cases {
		if got := DependencyDown(c.err); got != c.want {
			t.Errorf("%s: DependencyDown(%v) = %v, want %v", c.name, c.err, got, c.want)
		}
	}
}

func TestPublic(t *testing.T) {
	lost := &pgError{"57P01"}
	for _, c := range []struct {
		name string
		err  error
		kind Kind
		code string
	}{
		{"plain bug", errors.New("boom"), KindInternal, CodeInternal},
		{"internal bug", Internal(errors.New("boom")), KindInternal, CodeInternal},
		{"plain lost connection", fmt.Errorf("get customer: %w", lost), KindUnavailable, CodeServiceUnavailable},
		{"lost connection translated as internal", Internal(lost), KindUnavailable, CodeServiceUnavailable},
		{"a client error keeps its code", NotFound("Customer"), KindNotFound, CodeNotFound},
		{"a validation error caused by EOF stays one", &Error{Kind: KindInvalid, Code: CodeInvalidJSON, Err: io.EOF}, KindInvalid, CodeInvalidJSON},
	} {
		e := Public(c.err)
		if e.Kind != c.kind || e.Code != c.code {
			t.Errorf("%s: %s (%d), want %s (%d)", c.name, e.Code, e.Kind, c.code, c.kind)
		}
		if c.kind == KindUnavailable && !errors.Is(e, lost) {
			t.Errorf("%s: the cause is lost for the log", c.name)
		}
	}
}
