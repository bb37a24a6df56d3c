// Package envelope writes every HTTP response body in the platform's one
// shape: {status, message?, data?, error?, meta{requestId, timestamp}}.
package envelope

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/requestid"
)

// TimeFormat is the ISO 8601 UTC layout used for every timestamp on the wire.
const TimeFormat = "2006-01-02T15:04:05.000Z"

// Meta is carried by every response.
type Meta struct {
	RequestID string `json:"requestId"`
	Timestamp string `json:"timestamp"`
}

// ErrorBody is the error member of a failure.
type ErrorBody struct {
	Code    string          `json:"code"`
	Message string          `json:"message"`
	Details []apperr.Detail `json:"details,omitempty"`
}

// Response is the union of both shapes, for clients decoding a body.
type Response struct {
	Status  bool            `json:"status"`
	Message string          `json:"message,omitempty"`
	Data    json.RawMessage `json:"data,omitempty"`
	Error   *ErrorBody      `json:"error,omitempty"`
	Meta    Meta            `json:"meta"`
}

type success struct {
	Status  bool   `json:"status"`
	Message string `json:"message,omitempty"`
	Data    any    `json:"data"`
	Meta    Meta   `json:"meta"`
}

type failure struct {
	Status bool      `json:"status"`
	Error  ErrorBody `json:"error"`
	Meta   Meta      `json:"meta"`
}

// MetaFor builds meta for the request in ctx.
func MetaFor(ctx context.Context) Meta {
	return Meta{RequestID: requestid.From(ctx), Timestamp: time.Now().UTC().Format(TimeFormat)}
}

// Timestamp formats t the way the API does, or returns nil for the zero time.
func Timestamp(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := t.UTC().Format(TimeFormat)
	return &s
}

// OK writes a success envelope.
func OK(ctx context.Context, w http.ResponseWriter, status int, message string, data any) {
	writeJSON(w, status, success{Status: true, Message: message, Data: data, Meta: MetaFor(ctx)})
}

// Fail writes err as a failure envelope. Errors that are not *apperr.Error
// become 500 INTERNAL_ERROR, or 503 SERVICE_UNAVAILABLE when a dependency
// dropped or refused the connection (apperr.Public): a database restart is
// not a bug, and the client may retry. Every 503 carries Retry-After.
// Server-side failures are logged with their cause; clients only see the
// generic message.
func Fail(ctx context.Context, w http.ResponseWriter, log *slog.Logger, err error) {
	e := apperr.Public(err)
	status := Status(e.Kind)
	switch {
	case errors.Is(err, context.Canceled) && ctx.Err() != nil:
		// The client went away: nobody reads the answer, and it is not
		// the service failing.
		if log != nil {
			log.InfoContext(ctx, "client went away before the answer", "err", err)
		}
	case status >= 500 && log != nil:
		log.ErrorContext(ctx, "request failed", "code", e.Code, "err", err)
	}
	for k, v := range e.Headers {
		w.Header().Set(k, v)
	}
	if status == http.StatusServiceUnavailable && w.Header().Get("Retry-After") == "" {
		w.Header().Set("Retry-After", apperr.RetryAfterUnavailable)
	}
	writeJSON(w, status, failure{Error: ErrorBody{Code: e.Code, Message: e.Message, Details: e.Details}, Meta: MetaFor(ctx)})
}

// Status maps an error kind to its HTTP status.
func Status(k apperr.Kind) int {
	switch k {
	case apperr.KindInvalid:
		return http.StatusBadRequest
	case apperr.KindUnauthorized:
		return http.StatusUnauthorized
	case apperr.KindForbidden:
		return http.StatusForbidden
	case apperr.KindNotFound:
		return http.StatusNotFound
	case apperr.KindMethodNotAllowed:
		return http.StatusMethodNotAllowed
	case apperr.KindConflict:
		return http.StatusConflict
	case apperr.KindTooLarge:
		return http.StatusRequestEntityTooLarge
	case apperr.KindUnsupported:
		return http.StatusUnsupportedMediaType
	case apperr.KindUnprocessable:
		return http.StatusUnprocessableEntity
	case apperr.KindRateLimited:
		return http.StatusTooManyRequests
	case apperr.KindUnavailable:
		return http.StatusServiceUnavailable
	case apperr.KindNotImplemented:
		return http.StatusNotImplemented
	case apperr.KindGone:
		return http.StatusGone
	}
	return http.StatusInternalServerError
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	buf := buffers.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= maxPooled {
			buf.Reset()
			buffers.Put(buf)
		}
	}()
	buf.Reset()
	// Encode writes what Marshal returns, and the newline.
	if err := json.NewEncoder(buf).Encode(v); err != nil {
		// Only unmarshalable data types get here: a programming error.
		status = http.StatusInternalServerError
		buf.Reset()
		buf.WriteString(`{"status":false,"error":{"code":"INTERNAL_ERROR","message":"An internal error occurred; please retry later"},"meta":{"requestId":"","timestamp":""}}` + "\n")
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// buffers recycles the bodies' encoding buffers (every answer of every
// service is encoded here); one that grew past maxPooled (a large list)
// is left to the collector.
var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

const maxPooled = 64 << 10
