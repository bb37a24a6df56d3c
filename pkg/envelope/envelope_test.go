package envelope

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/kycfield/kyc/pkg/apperr"
)

// A failure caused by a dependency that dropped its connection is a 503
// SERVICE_UNAVAILABLE with Retry-After and a generic message; every 503
// carries Retry-After, its own when it sets one; a bug stays a 500.
func TestFailStatusCodeAndRetryAfter(t *testing.T) {
	cases := []struct {
		name       string
		err        error
		status     int
		code       string
		retryAfter string
	}{
		{"lost connection", fmt.Errorf("list customers: %w", io.ErrUnexpectedEOF), 503, apperr.CodeServiceUnavailable, apperr.RetryAfterUnavailable},
		{"lost connection translated as internal", apperr.Internal(io.ErrUnexpectedEOF), 503, apperr.CodeServiceUnavailable, apperr.RetryAfterUnavailable},
		{"unavailable without a header", apperr.Unavailable("The key store", errors.New("down")), 503, apperr.CodeServiceUnavailable, apperr.RetryAfterUnavailable},
		{"unavailable with its own", apperr.Unavailable("Storage", nil).WithHeader("Retry-After", "30"), 503, apperr.CodeServiceUnavailable, "30"},
		{"a bug", errors.New("nil map"), 500, apperr.CodeInternal, ""},
		{"a client error", apperr.NotFound("Customer"), 404, apperr.CodeNotFound, ""},
	}
	for _, c := range cases {
		w := httptest.NewRecorder()
		Fail(context.Background(), w, nil, c.err)
		var resp Response
		if err := json.Unmarshal(w.Body.Bytes(), &resp); err != nil || resp.Error == nil {
			t.Fatalf("%s: %q", c.name, w.Body)
		}
		if w.Code != c.status || resp.Error.Code != c.code || w.Header().Get("Retry-After") != c.retryAfter {
			t.Errorf("%s: %d %s Retry-After %q, want %d %s %q", c.name, w.Code, resp.Error.Code, w.Header().Get("Retry-After"), c.status, c.code, c.retryAfter)
		}
		if c.status == http.StatusServiceUnavailable && c.retryAfter == apperr.RetryAfterUnavailable && resp.Error.Message == "" {
			t.Errorf("%s: no message", c.name)
		}
	}
}
