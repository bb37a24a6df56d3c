package kitserver

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/logging"
)

// A read that meets a lost connection is run once more; a write is not;
// a read that fails twice, or for another reason, is not run a third time.
// Whatever is left of a lost connection is a 503 with Retry-After, not a
// 500.
func TestReadsAreRetriedOnceAfterALostConnection(t *testing.T) {
	bug := errors.New("nil map")
	cases := []struct {
		name     string
		method   string
		failures []error // returned by the first calls, in order
		status   int
		calls    int
	}{
		{"read, connection lost once", "GET", []error{io.ErrUnexpectedEOF}, http.StatusOK, 2},
		{"HEAD, connection lost once", "HEAD", []error{apperr.Internal(io.ErrUnexpectedEOF)}, http.StatusOK, 2},
		{"read, database down", "GET", []error{io.ErrUnexpectedEOF, io.ErrUnexpectedEOF}, http.StatusServiceUnavailable, 2},
		{"write, connection lost", "POST", []error{io.ErrUnexpectedEOF}, http.StatusServiceUnavailable, 1},
		{"read, a bug", "GET", []error{bug}, http.StatusInternalServerError, 1},
		{"read, not found", "GET", []error{apperr.NotFound("Person")}, http.StatusNotFound, 1},
		{"read, storage down", "GET", []error{&apperr.Error{Kind: apperr.KindUnavailable, Code: "STORAGE_UNAVAILABLE", Err: io.ErrUnexpectedEOF}}, http.StatusOK, 2},
		{"read, a client error wrapping EOF", "GET", []error{&apperr.Error{Kind: apperr.KindInvalid, Code: apperr.CodeValidation, Err: io.EOF}}, http.StatusBadRequest, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			calls := 0
			e := NewEndpoint(func(_ context.Context, _ greet) (Result, error) {
				calls++
				if calls <= len(c.failures) {
					return Result{}, c.failures[calls-1]
				}
				return Result{Message: "hi"}, nil
			})
			rec := httptest.NewRecorder()
			NewHandler(e, decodeGreet, logging.Discard()).ServeHTTP(rec, httptest.NewRequest(c.method, "/?name=Ada", nil))
			if rec.Code != c.status || calls != c.calls {
				t.Fatalf("%d after %d calls, want %d after %d", rec.Code, calls, c.status, c.calls)
			}
			if got := rec.Header().Get("Retry-After"); (rec.Code == http.StatusServiceUnavailable) != (got != "") {
				t.Fatalf("%d with Retry-After %q", rec.Code, got)
			}
		})
	}
}
