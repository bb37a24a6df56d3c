// Package apperr is the typed error every layer returns: a stable
// UPPER_SNAKE code for clients, a human message, optional per-field
// details, and the cause for the log. It knows nothing about HTTP; the
// envelope package maps a Kind to a status code.
package apperr

import (
	"errors"
	"fmt"
)

// Kind classifies an error by what the caller can do about it.
type Kind int

// Kinds, from the client's point of view.
const (
	KindInternal         Kind = iota // our fault; the client may retry later
	KindInvalid                      // the request is malformed or breaks a rule
	KindUnauthorized                 // no or bad credentials
	KindForbidden                    // credentials fine, action not allowed
	KindNotFound                     // nothing there for this caller
	KindConflict                     // clashes with the current state
	KindTooLarge                     // body too large
	KindUnsupported                  // media type not accepted
	KindUnprocessable                // well-formed but semantically refused
	KindRateLimited                  // quota or throttle
	KindUnavailable                  // a dependency is down; retry later
	KindMethodNotAllowed             // path exists, method does not
	KindNotImplemented               // routed but not built yet
	KindGone                         // existed, but is used up or expired for good
)

// Detail describes one offending field or conflicting resource.
type Detail struct {
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
	// ExistingID names the resource a conflict was found with.
	ExistingID string `json:"existingId,omitempty"`
	// Suggestions are values the field may have been meant to hold, best
	// first (a misspelt state: "Lagoss" suggests "Lagos").
	Suggestions []string `json:"suggestions,omitempty"`
}

// Error is the error type shared by domain, repository and transport code.
type Error struct {
	Kind    Kind
	Code    string
	Message string
	Details []Detail
	// Headers are extra response headers (e.g. Retry-After, Allow).
	Headers map[string]string
	// Err is the underlying cause, logged but never shown to clients.
	Err error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return e.Code + ": " + e.Message
}

// Unwrap exposes the cause to errors.Is/As.
func (e *Error) Unwrap() error { return e.Err }

// New builds an Error.
func New(kind Kind, code, message string) *Error {
	return &Error{Kind: kind, Code: code, Message: message}
}

// WithDetails returns a copy of e carrying details.
func (e *Error) WithDetails(d ...Detail) *Error {
	c := *e
	c.Details = append(append([]Detail(nil), e.Details...), d...)
	return &c
}

// WithHeader returns a copy of e that sets a response header.
func (e *Error) WithHeader(k, v string) *Error {
	c := *e
	c.Headers = make(map[string]string, len(e.Headers)+1)
	for hk, hv := range e.Headers {
		c.Headers[hk] = hv
	}
	c.Headers[k] = v
	return &c
}

// As extracts an *Error from err's chain.
func As(err error) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e, true
	}
	return nil, false
}

// IsCode reports whether err carries the given code.
func IsCode(err error, code string) bool {
	e, ok := As(err)
	return ok && e.Code == code
}

// Internal wraps an unexpected failure. The message shown to clients is
// generic; the cause stays in Err for the log.
func Internal(err error) *Error {
	return &Error{Kind: KindInternal, Code: CodeInternal, Message: "An internal error occurred; please retry later", Err: err}
}

// Unavailable reports that a dependency is down.
func Unavailable(what string, err error) *Error {
	return &Error{Kind: KindUnavailable, Code: CodeServiceUnavailable, Message: what + " is temporarily unavailable; please retry later", Err: err}
}

// Validation reports invalid input with one detail per bad field.
func Validation(details ...Detail) *Error {
	msg := "The request is invalid"
	if len(details) == 1 {
		msg = details[0].Message
		if details[0].Field != "" {
			msg = details[0].Field + ": " + msg
		}
	} else if len(details) > 1 {
		msg = fmt.Sprintf("The request has %d invalid fields", len(details))
	}
	return &Error{Kind: KindInvalid, Code: CodeValidation, Message: msg, Details: details}
}

// NotFound reports that the named resource does not exist for the caller.
func NotFound(what string) *Error {
	return &Error{Kind: KindNotFound, Code: CodeNotFound, Message: what + " not found"}
}

// Codes shared across services. Service-specific codes live with their
// domain; every code is listed in api/openapi.yaml.
const (
	CodeInternal           = "INTERNAL_ERROR"
	CodeServiceUnavailable = "SERVICE_UNAVAILABLE"
	CodeValidation         = "VALIDATION_ERROR"
	CodeInvalidJSON        = "INVALID_JSON"
	CodeNotFound           = "NOT_FOUND"
	CodeUnauthorized       = "UNAUTHORIZED"
	CodeInsufficientScope  = "INSUFFICIENT_SCOPE"
	CodePayloadTooLarge    = "PAYLOAD_TOO_LARGE"
	CodeUnsupportedMedia   = "UNSUPPORTED_MEDIA_TYPE"
	CodeMethodNotAllowed   = "METHOD_NOT_ALLOWED"
	CodeNotImplemented     = "NOT_IMPLEMENTED"
)

// Checker collects every field problem of an input, so that one
// validation error reports them all.
type Checker struct{ details []Detail }

// Fail records a problem with field.
func (c *Checker) Fail(field, format string, args ...any) {
	c.details = append(c.details, Detail{Field: field, Message: fmt.Sprintf(format, args...)})
}

// Add records a problem described in full, suggestions included.
func (c *Checker) Add(d Detail) { c.details = append(c.details, d) }

// Err is the validation error of every recorded problem, or nil.
func (c *Checker) Err() error {
	if len(c.details) == 0 {
		return nil
	}
	return Validation(c.details...)
}
