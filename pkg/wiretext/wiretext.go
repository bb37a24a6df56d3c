// Package wiretext refuses request text that no service can store or
// compare: invalid UTF-8 and the NUL character. PostgreSQL rejects both
// in a text value ("invalid byte sequence"), so letting them through
// turned a client's typo into a 500; here they are a 400
// VALIDATION_ERROR naming the offending part, before anything else runs.
package wiretext

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/kycfield/kyc/pkg/apperr"
)

// Message is the validation message for text that is not Valid.
const Message = "must be valid UTF-8 text without NUL characters"

// Valid reports whether s is valid UTF-8 without NUL.
func Valid(s string) bool {
	return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0
}

// PlainMessage is the validation message for a field that is not Plain.
const PlainMessage = "must be text without control characters (line breaks and tabs are allowed)"

// Plain reports whether s is text a person could have typed: valid UTF-8
// with no control character (Unicode Cc: C0, DEL and C1) other than tab,
// line feed, and a carriage return that begins a CRLF line break. A NUL
// cannot be stored (Postgres refuses it: it was a 500), and a terminal
// escape, a bell or a lone carriage return has no business in a report,
// a dashboard or the lender's logs, where it can rewrite what a reader
// sees. Every JSON string a service decodes (pkg/jsonbody) is held to it.
func Plain(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 0x20 && c < 0x7f:
		case c == '\t' || c == '\n':
		case c == '\r':
			if i+1 >= len(s) || s[i+1] != '\n' {
				return false
			}
		case c < 0x80:
			return false // the rest of C0, and DEL
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 || r >= 0x80 && r <= 0x9f {
				return false // invalid UTF-8, or C1
			}
			i += size - 1
		}
	}
	return true
}

// Request checks r's path, query parameters (names and values) and
// header values, and returns a validation error for the first part that
// is not Valid. Details name the part ("path", the parameter, or
// "header <Name>") so a client can find it; a name that is itself not
// valid text is not echoed back. It runs on every request at the gateway,
// so the common case (nothing wrong) allocates nothing.
func Request(r *http.Request) error {
	if !Valid(r.URL.Path) {
		return fail("path")
	}
	if err := Query(r.URL.RawQuery); err != nil {
		return err
	}
	for _, vs := range r.Header {
		for _, v := range vs {
			if !Valid(v) {
				return badHeader(r.Header)
			}
		}
	}
	return nil
}

// badHeader names the first bad header in name order, so that a request
// with several always gets the same answer.
func badHeader(h http.Header) error {
	names := make([]string, 0, len(h))
	for name := range h {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		for _, v := range h[name] {
			if !Valid(v) {
				if !Valid(name) {
					return fail("header")
				}
				return fail("header " + name)
			}
		}
	}
	return nil
}

// Query checks every parameter of a raw query string as url.ParseQuery
// decodes it (malformed pairs, which it skips, are not checked: no
// handler sees them either).
func Query(raw string) error {
	if !strings.Contains(raw, "%") && Valid(raw) {
		return nil // nothing encoded: what is there is what handlers get
	}
	q, _ := url.ParseQuery(raw)
	names := make([]string, 0, len(q))
	for name := range q {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if !Valid(name) {
			return fail("query")
		}
		for _, v := range q[name] {
			if !Valid(v) {
				return fail(name)
			}
		}
	}
	return nil
}

func fail(field string) error {
	return apperr.Validation(apperr.Detail{Field: field, Message: Message})
}
