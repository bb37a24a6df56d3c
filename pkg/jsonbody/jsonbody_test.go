package jsonbody

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kycfield/kyc/pkg/apperr"
)

func TestReadErrors(t *testing.T) {
	cases := []struct {
		body, ctype, code string
	}{
		{`{"a":1}`, "text/plain", apperr.CodeUnsupportedMedia},
		{`{"a":1}`, "application/merge-patch+json", ""},
		{`{"a":1}`, "application/json; charset=utf-8", ""},
		{strings.Repeat(" ", 100) + `{}`, "", apperr.CodePayloadTooLarge},
		{`{"a":`, "", apperr.CodeInvalidJSON},
		{`{"a":1} trailing`, "", apperr.CodeInvalidJSON},
		{``, "", apperr.CodeInvalidJSON},
		{`42`, "", apperr.CodeValidation},
	}
	for _, c := range cases {
		r := httptest.NewRequest("POST", "/", strings.NewReader(c.body))
		if c.ctype != "" {
			r.Header.Set("Content-Type", c.ctype)
		}
		_, err := Read(r, 64)
		if c.code == "" {
			if err != nil {
				t.Errorf("%q: %v", c.body, err)
			}
			continue
		}
		if !apperr.IsCode(err, c.code) {
			t.Errorf("%q (%s): got %v, want %s", c.body, c.ctype, err, c.code)
		}
	}
}

func TestFieldsAndPaths(t *testing.T) {
	o, err := Parse([]byte(`{"s":"x","n":null,"i":3,"f":1.5,"b":true,"arr":[{"k":1},{"z":2}],"strs":["a"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := o.String("s"); !ok || v != "x" {
		t.Error("string")
	}
	if !o.Has("n") || !o.IsNull("n") || o.Has("missing") {
		t.Error("null/absent")
	}
	if _, ok := o.String("n"); ok {
		t.Error("null read as a string")
	}
	if v, ok := o.Int("i"); !ok || v != 3 {
		t.Error("int")
	}
	if _, ok := o.Int("f"); ok {
		t.Error("1.5 read as an integer")
	}
	objs, _ := o.Objects("arr")
	objs[1].RejectUnknown("k")
	if _, ok := o.String("i"); ok {
		t.Error("number read as a string")
	}
	o.RejectUnknown("s", "n", "i", "f", "b", "arr", "strs")
	got := map[string]string{}
	for _, d := range o.Errors() {
		got[d.Field] = d.Message
	}
	if got["arr[1].z"] != "unknown field" || got["f"] != "must be an integer" || got["i"] != "must be a string" || len(got) != 3 {
		t.Fatalf("details: %v", got)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":[{"b":null}]}`, `[`, `"x"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		o, err := Parse([]byte(s))
		if err != nil {
			if _, ok := apperr.As(err); !ok {
				t.Fatalf("non-typed error %v", err)
			}
			return
		}
		for _, k := range []string{"a", "b"} {
			o.String(k)
			o.Int(k)
			o.Objects(k)
		}
		o.RejectUnknown()
	})
}
