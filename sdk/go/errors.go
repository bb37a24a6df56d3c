package kyc

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/kycfield/kyc/sdk/go/kycapi"
)

// CodeUnexpectedResponse is the Code of an Error the SDK makes itself when a
// failed response carries no error envelope (a proxy's HTML page, say).
const CodeUnexpectedResponse = "UNEXPECTED_RESPONSE"

// Error is a failed call: the HTTP status and the platform's error envelope
// ({status:false, error:{code, message, details}, meta:{requestId}}).
// Branch on Code, never on Message.
type Error struct {
	HTTPStatus int
	Code       string
	Message    string
	// Details name the offending fields (VALIDATION_ERROR) or the holder of
	// a duplicate value (DUPLICATE_CUSTOMER: ExistingId).
	Details []kycapi.ErrorDetail
	// RequestID is meta.requestId, the X-Request-Id to quote to support.
	RequestID string
}

func (e *Error) Error() string {
	return fmt.Sprintf("kyc: %d %s: %s (request %s)", e.HTTPStatus, e.Code, e.Message, e.RequestID)
}

// ErrorCode is the Code of err when it is (or wraps) an *Error, else "".
func ErrorCode(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// response is what every generated kycapi *Response has.
type response interface {
	StatusCode() int
	GetBody() []byte
}

// Check turns a generated call's non-2xx answer into an *Error, so that any
// operation of the generated client gets the SDK's typed errors:
//
//	res, err := kyc.Check(c.API.GetCustomerWithResponse(ctx, id, nil))
//	if kyc.ErrorCode(err) == "NOT_FOUND" { ... }
//	customer := res.JSON200.Data
func Check[R response](r R, err error) (R, error) {
	if err != nil {
		return r, err
	}
	if status := r.StatusCode(); status < 200 || status > 299 {
		return r, errorFrom(status, r.GetBody(), "")
	}
	return r, nil
}

// errorFrom reads the error envelope of a failed answer; requestID (the
// X-Request-Id header, when known) stands in when the body has none.
func errorFrom(status int, body []byte, requestID string) *Error {
	var env kycapi.ErrorEnvelope
	if json.Unmarshal(body, &env) != nil || env.Error.Code == "" {
		msg := string(body)
		if len(msg) > 200 {
			msg = msg[:200]
		}
		if msg == "" {
			msg = http.StatusText(status)
		}
		return &Error{HTTPStatus: status, Code: CodeUnexpectedResponse, Message: msg, RequestID: requestID}
	}
	e := &Error{HTTPStatus: status, Code: env.Error.Code, Message: env.Error.Message, RequestID: env.Meta.RequestId}
	if env.Error.Details != nil {
		e.Details = *env.Error.Details
	}
	if e.RequestID == "" {
		e.RequestID = requestID
	}
	return e
}
