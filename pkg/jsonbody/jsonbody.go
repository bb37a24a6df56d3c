// Package jsonbody reads a JSON object request body into a typed request
// struct (ReadInto, Decode, Object.Into) or hands out its fields one by
// one, collecting every problem (wrong type, unknown, refused or missing
// required field) as a field detail with its path instead of stopping at
// the first. With optional.Field members it tells apart a field that is
// absent, explicitly null, or set, which partial updates need. Malformed
// JSON is INVALID_JSON, an oversized body PAYLOAD_TOO_LARGE, a non-JSON
// content type UNSUPPORTED_MEDIA_TYPE.
package jsonbody

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"reflect"
	"sort"
	"strconv"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/wiretext"
)

// Object is one JSON object of the body (the root or a nested one).
type Object struct {
	path   string
	fields map[string]json.RawMessage
	errs   *[]apperr.Detail
}

// Read reads and parses r's body, refusing more than max bytes.
func Read(r *http.Request, max int64) (*Object, error) {
	b, err := ReadRaw(r, max)
	if err != nil {
		return nil, err
	}
	return Parse(b)
}

// ReadRaw reads r's body unparsed, with Read's checks (a JSON content
// type, at most max bytes), for callers that also need the bytes (a
// request fingerprint).
func ReadRaw(r *http.Request, max int64) ([]byte, error) {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != "application/json" && !hasJSONSuffix(mt)) {
			return nil, apperr.New(apperr.KindUnsupported, apperr.CodeUnsupportedMedia, "Content-Type must be application/json")
		}
	}
	b, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, max))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, apperr.New(apperr.KindTooLarge, apperr.CodePayloadTooLarge, fmt.Sprintf("Request body exceeds %d bytes", max))
		}
		return nil, apperr.New(apperr.KindInvalid, apperr.CodeInvalidJSON, "Request body could not be read")
	}
	return b, nil
}

func hasJSONSuffix(mt string) bool {
	return len(mt) > 5 && mt[len(mt)-5:] == "+json"
}

// Parse parses a JSON object.
func Parse(b []byte) (*Object, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, apperr.New(apperr.KindInvalid, apperr.CodeInvalidJSON, "Request body is empty; a JSON object is expected")
	}
	if !json.Valid(b) {
		return nil, apperr.New(apperr.KindInvalid, apperr.CodeInvalidJSON, "Request body is not valid JSON: "+syntaxError(b))
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil || fields == nil {
		return nil, apperr.Validation(apperr.Detail{Message: "Request body must be a JSON object"})
	}
	return &Object{fields: fields, errs: &[]apperr.Detail{}}, nil
}

func syntaxError(b []byte) string {
	var v any
	err := json.Unmarshal(b, &v)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%s (at byte %d)", se.Error(), se.Offset)
	}
	if err != nil {
		return err.Error()
	}
	return "unexpected content"
}

// Path returns the full path of a field of o, e.g. "addresses[1].city".
func (o *Object) Path(name string) string {
	if o.path == "" {
		return name
	}
	return o.path + "." + name
}

// Fail records a problem with a field of o.
func (o *Object) Fail(name, message string) {
	*o.errs = append(*o.errs, apperr.Detail{Field: o.Path(name), Message: message})
}

// Errors returns every problem recorded so far on the whole body.
func (o *Object) Errors() []apperr.Detail { return *o.errs }

// Has reports whether name is present (even as null).
func (o *Object) Has(name string) bool { _, ok := o.fields[name]; return ok }

// IsNull reports whether name is present and null.
func (o *Object) IsNull(name string) bool {
	raw, ok := o.fields[name]
	return ok && string(bytes.TrimSpace(raw)) == "null"
}

// Len returns the number of fields.
func (o *Object) Len() int { return len(o.fields) }

// String returns a string field; ok is false when absent, null or not a
// string (the last is recorded as an error).
func (o *Object) String(name string) (string, bool) {
	var s string
	return s, o.decode(name, &s, "must be a string")
}

// Int returns an integer field.
func (o *Object) Int(name string) (int64, bool) {
	raw, ok := o.fields[name]
	if !ok || o.IsNull(name) {
		return 0, false
	}
	n, err := strconv.ParseInt(string(bytes.TrimSpace(raw)), 10, 64)
	if err != nil {
		o.Fail(name, "must be an integer")
		return 0, false
	}
	return n, true
}

// Bool returns a boolean field.
func (o *Object) Bool(name string) (bool, bool) {
	var b bool
	return b, o.decode(name, &b, "must be a boolean")
}

// Strings returns an array-of-strings field.
func (o *Object) Strings(name string) ([]string, bool) {
	var s []string
	return s, o.decode(name, &s, "must be an array of strings")
}

// Objects returns an array-of-objects field; nested problems are reported
// with paths like "addresses[2].city".
func (o *Object) Objects(name string) ([]*Object, bool) {
	var raws []json.RawMessage
	if !o.decode(name, &raws, "must be an array of objects") {
		return nil, false
	}
	out := make([]*Object, 0, len(raws))
	for i, raw := range raws {
		var f map[string]json.RawMessage
		if err := json.Unmarshal(raw, &f); err != nil || f == nil {
			o.Fail(fmt.Sprintf("%s[%d]", name, i), "must be an object")
			continue
		}
		out = append(out, &Object{path: o.Path(fmt.Sprintf("%s[%d]", name, i)), fields: f, errs: o.errs})
	}
	return out, true
}

// RejectUnknown records every field of o that is not in allowed.
func (o *Object) RejectUnknown(allowed ...string) {
	ok := make(map[string]bool, len(allowed))
	for _, a := range allowed {
		ok[a] = true
	}
	var unknown []string
	for k := range o.fields {
		if !ok[k] {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	for _, k := range unknown {
		o.Fail(k, "unknown field")
	}
}

func (o *Object) decode(name string, dst any, typeMsg string) bool {
	raw, ok := o.fields[name]
	if !ok || o.IsNull(name) {
		return false
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		o.Fail(name, typeMsg)
		return false
	}
	if !plainValue(reflect.ValueOf(dst)) {
		o.Fail(name, wiretext.PlainMessage)
		return false
	}
	return true
}
