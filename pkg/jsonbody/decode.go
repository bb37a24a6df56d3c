package jsonbody

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/wiretext"
)

// Refused is a member clients may plausibly send but must not, such as a
// read-only field or one that belongs to another operation; Into reports
// it with Message instead of "unknown field".
type Refused struct{ Field, Message string }

// Optional is what Into needs of an optional member type
// (*optional.Field implements it): it records presence itself and hands
// out the value to fill, so problems inside the value keep their paths.
type Optional interface {
	MarkPresent(null bool)
	ValuePtr() any
}

// Decode parses b as a JSON object and fills dst with Into. Malformed JSON
// is INVALID_JSON; a body that is not an object, or any problem Into
// finds, is one VALIDATION_ERROR naming every field at fault.
func Decode(b []byte, dst any, refused ...Refused) error {
	o, err := Parse(b)
	if err != nil {
		return err
	}
	o.Into(dst, refused...)
	return o.Err()
}

// ReadInto reads r's body as Read does (content type, size limit) and
// fills dst as Decode does.
func ReadInto(r *http.Request, max int64, dst any, refused ...Refused) error {
	o, err := Read(r, max)
	if err != nil {
		return err
	}
	o.Into(dst, refused...)
	return o.Err()
}

// Into fills dst, a pointer to a struct, from o: each member goes to the
// field its json tag names (the Go name when untagged; names match
// exactly), and the fields of an untagged embedded struct are the outer
// struct's own, as in encoding/json. Every problem is recorded on o with
// its path instead of stopping at the first: first the refused members
// present, in the order given, then unknown members in name order, then
// values of the wrong type and absent required members in field order.
// Nested structs and slices of structs, optional or not, are walked the
// same way, so "addresses[1].zip" is reported as unknown; other values are
// decoded by encoding/json. A null leaves a plain field as it is and marks
// an Optional one present and null.
//
// A field tagged required:"message" must be present; absent, it is
// reported with message ("is required" when the tag is empty), in its
// place among the other problems. A null counts as present: what a value
// may be is for the caller to check.
//
// Into panics when dst is not a non-nil pointer to a struct, or the
// struct names a member twice: both are programming errors.
func (o *Object) Into(dst any, refused ...Refused) {
	v := reflect.ValueOf(dst)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		panic(fmt.Sprintf("jsonbody: Into needs a non-nil pointer to a struct, not %T", dst))
	}
	o.into(v.Elem(), refused)
}

// Err returns every problem recorded on the body as one validation
// error, or nil when there is none.
func (o *Object) Err() error {
	if len(*o.errs) == 0 {
		return nil
	}
	return apperr.Validation(*o.errs...)
}

func (o *Object) into(v reflect.Value, refused []Refused) {
	p := planOf(v.Type())
	allowed := slices.Clone(p.names)
	isRefused := make(map[string]bool, len(refused))
	for _, r := range refused {
		if o.Has(r.Field) {
			o.Fail(r.Field, r.Message)
		}
		isRefused[r.Field] = true
		allowed = append(allowed, r.Field)
	}
	o.RejectUnknown(allowed...)
	for _, m := range p.members {
		raw, ok := o.fields[m.name]
		switch {
		case isRefused[m.name]:
		case ok:
			o.member(m.name, raw, v.FieldByIndex(m.index))
		case m.required != "":
			o.Fail(m.name, m.required)
		}
	}
}

// member decodes the member name of o into v.
func (o *Object) member(name string, raw json.RawMessage, v reflect.Value) {
	null := string(bytes.TrimSpace(raw)) == "null"
	if opt, ok := v.Addr().Interface().(Optional); ok {
		opt.MarkPresent(null)
		if !null {
			o.member(name, raw, reflect.ValueOf(opt.ValuePtr()).Elem())
		}
		return
	}
	if null {
		return
	}
	t := v.Type()
	switch {
	case t.Kind() == reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(t.Elem()))
		}
		o.member(name, raw, v.Elem())
	case walkable(t):
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(raw, &fields); err != nil {
			o.Fail(name, "must be an object")
			return
		}
		child := &Object{path: o.Path(name), fields: fields, errs: o.errs}
		child.into(v, nil)
	case t.Kind() == reflect.Slice && walkable(t.Elem()):
		objs, ok := o.Objects(name)
		if !ok {
			return
		}
		s := reflect.MakeSlice(t, 0, len(objs))
		for _, child := range objs {
			e := reflect.New(t.Elem()).Elem()
			child.into(e, nil)
			s = reflect.Append(s, e)
		}
		v.Set(s)
	default:
		if err := json.Unmarshal(raw, v.Addr().Interface()); err != nil {
			o.Fail(name, typeMessage(t))
		} else if !plainValue(v) {
			o.Fail(name, wiretext.PlainMessage)
		}
	}
}

// plainValue reports whether every string in v (strings, and those in
// slices, arrays, maps and pointers) is wiretext.Plain: a control
// character in any text field of any API is the client's mistake, named
// by its field, before a use case sees it. Byte slices (json.RawMessage)
// and values that decode themselves (time.Time) hold no text of the
// client's to check.
func plainValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.String:
		return wiretext.Plain(v.String())
	case reflect.Pointer, reflect.Interface:
		return v.IsNil() || plainValue(v.Elem())
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return true
		}
		for i := range v.Len() {
			if !plainValue(v.Index(i)) {
				return false
			}
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			if !plainValue(it.Key()) || !plainValue(it.Value()) {
				return false
			}
		}
	}
	return true
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// walkable reports whether Into walks values of t member by member: plain
// structs, not those that decode themselves (time.Time).
func walkable(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && !t.Implements(unmarshalerType) && !reflect.PointerTo(t).Implements(unmarshalerType)
}

// typeMessage says what a value of t must be.
func typeMessage(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "must be a string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "must be an integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "must be a non-negative integer"
	case reflect.Float32, reflect.Float64:
		return "must be a number"
	case reflect.Bool:
		return "must be a boolean"
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.String {
			return "must be an array of strings"
		}
		return "must be an array"
	case reflect.Map:
		return "must be an object"
	}
	return "has an invalid value"
}

// plan lists the members of a struct type in field order.
type plan struct {
	members []planMember
	names   []string
}

type planMember struct {
	name     string
	index    []int
	required string // what to report when the member is absent; "" when it may be
}

var plans sync.Map // reflect.Type -> *plan

func planOf(t reflect.Type) *plan {
	if p, ok := plans.Load(t); ok {
		return p.(*plan)
	}
	p := &plan{}
	var walk func(t reflect.Type, index []int)
	walk = func(t reflect.Type, index []int) {
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, _, _ := strings.Cut(tag, ",")
			idx := append(slices.Clip(index), i)
			if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct && walkable(f.Type) {
				walk(f.Type, idx)
				continue
			}
			if !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			if slices.Contains(p.names, name) {
				panic(fmt.Sprintf("jsonbody: %s names member %q twice", t, name))
			}
			required, ok := f.Tag.Lookup("required")
			if ok && required == "" {
				required = "is required"
			}
			p.members = append(p.members, planMember{name: name, index: idx, required: required})
			p.names = append(p.names, name)
		}
	}
	walk(t, nil)
	actual, _ := plans.LoadOrStore(t, p)
	return actual.(*plan)
}

// OnlyPlainText reports whether every string reachable from v, through
// exported struct fields too, is wiretext.Plain: what fuzz tests of a
// service's decoders assert of every body they accept.
func OnlyPlainText(v any) bool { return onlyPlain(reflect.ValueOf(v)) }

func onlyPlain(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() && !onlyPlain(v.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Pointer, reflect.Interface:
		return v.IsNil() || onlyPlain(v.Elem())
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if !onlyPlain(v.Index(i)) {
				return false
			}
		}
		return true
	}
	return plainValue(v)
}
