// Package optional tells apart the three states of an input member that
// partial updates need: absent, explicitly null, or set to a value.
package optional

import (
	"bytes"
	"encoding/json"
)

// Field is a member that may be absent, null or set. The zero value is
// absent, which is what encoding/json leaves when the member is missing
// (it never calls UnmarshalJSON then).
type Field[T any] struct {
	Set  bool // present in the input, possibly as null
	Null bool // present as null
	V    T    // the value, when set and not null
}

// Of returns a field set to v.
func Of[T any](v T) Field[T] { return Field[T]{Set: true, V: v} }

// Null returns a field present as null.
func Null[T any]() Field[T] { return Field[T]{Set: true, Null: true} }

// Has reports whether the field carries a value (set and not null).
func (f Field[T]) Has() bool { return f.Set && !f.Null }

// UnmarshalJSON records the member as present: null leaves V zero, any
// other value is decoded into V.
func (f *Field[T]) UnmarshalJSON(b []byte) error {
	var zero T
	f.Set, f.Null, f.V = true, false, zero
	if string(bytes.TrimSpace(b)) == "null" {
		f.Null = true
		return nil
	}
	return json.Unmarshal(b, &f.V)
}

// MarkPresent records the member as present, as null or not, with V
// zero. Decoders that walk a struct themselves (jsonbody) call it instead
// of UnmarshalJSON, then fill ValuePtr, so that problems inside V are
// reported with their own paths.
func (f *Field[T]) MarkPresent(null bool) {
	var zero T
	f.Set, f.Null, f.V = true, null, zero
}

// ValuePtr returns a pointer to V, for decoders that fill it themselves.
func (f *Field[T]) ValuePtr() any { return &f.V }
