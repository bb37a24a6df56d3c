package jsonbody

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/optional"
	"github.com/kycfield/kyc/pkg/wiretext"
)

type item struct {
	Name optional.Field[string] `json:"name"`
	Size optional.Field[int64]  `json:"size"`
}

type common struct {
	Title optional.Field[string] `json:"title"`
}

type body struct {
	common
	Count   int64                    `json:"count"`
	Tags    optional.Field[[]string] `json:"tags"`
	Items   optional.Field[[]item]   `json:"items"`
	Main    *item                    `json:"main"`
	Owner   item                     `json:"owner,omitempty"`
	Flag    bool                     `json:"flag"`
	When    time.Time                `json:"when"`
	Untaged string
	Ignored string `json:"-"`
	hidden  string // never decoded
}

var refused = []Refused{{"id", "is read-only"}, {"status", "is read-only"}, {"count", "cannot be sent here"}}

func TestDecodeFillsEveryKindOfField(t *testing.T) {
	var got body
	err := Decode([]byte(`{"title":"T","tags":["a"],"items":[{"name":"x","size":2},{}],"main":{"name":null},
		"owner":{"size":3},"flag":true,"when":"2026-01-02T03:04:05Z","Untaged":"u"}`), &got)
	if err != nil {
		t.Fatal(err)
	}
	want := body{common: common{Title: optional.Of("T")}, Tags: optional.Of([]string{"a"}),
		Items: optional.Of([]item{{Name: optional.Of("x"), Size: optional.Of[int64](2)}, {}}),
		Main:  &item{Name: optional.Null[string]()}, Owner: item{Size: optional.Of[int64](3)}, Flag: true,
		When: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Untaged: "u"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
}

// TestDecodeRefusesControlCharacters: every text member, at any depth,
// is refused with its path when it holds a control character other than
// a line break or tab; those and every other character pass.
func TestDecodeRefusesControlCharacters(t *testing.T) {
	for _, c := range []struct {
		name, body string
		fields     []string
	}{
		{"NUL", `{"title":"a\u0000b"}`, []string{"title"}},
		{"escape in a nested member", `{"main":{"name":"\u001b[2J"}}`, []string{"main.name"}},
		{"bell in a list element", `{"items":[{"name":"ok"},{"name":"ring\u0007"}]}`, []string{"items[1].name"}},
		{"C1 in an array of strings", `{"tags":["a","\u0085"]}`, []string{"tags"}},
		{"lone carriage return", `{"Untaged":"over\rwrite"}`, []string{"Untaged"}},
		{"several at once", `{"title":"\u007f","main":{"name":"\u0000"}}`, []string{"title", "main.name"}},
		{"line breaks, tabs and any script", `{"title":"a\r\nb\tc\nd ₦ Ọ̀ 日本","tags":["x\ty"]}`, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got body
			err := Decode([]byte(c.body), &got)
			if c.fields == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			e, ok := apperr.As(err)
			if !ok || e.Code != apperr.CodeValidation {
				t.Fatalf("err = %v, want VALIDATION_ERROR", err)
			}
			var fields []string
			for _, d := range e.Details {
				if d.Message != wiretext.PlainMessage {
					t.Errorf("%s: message %q", d.Field, d.Message)
				}
				fields = append(fields, d.Field)
			}
			if !reflect.DeepEqual(fields, c.fields) {
				t.Fatalf("fields %v, want %v", fields, c.fields)
			}
		})
	}
	o, err := Parse([]byte(`{"a":"x\u0000","b":["\u001b"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := o.String("a"); ok {
		t.Error("String accepted a NUL")
	}
	if _, ok := o.Strings("b"); ok {
		t.Error("Strings accepted an escape")
	}
	if len(o.Errors()) != 2 {
		t.Errorf("errors %+v", o.Errors())
	}
}

func TestDecodeNullsAndAbsence(t *testing.T) {
	got := body{Count: 9, Flag: true}
	if err := Decode([]byte(`{"title":null,"items":null,"main":null,"count":null,"flag":null}`), &got); err != nil {
		t.Fatal(err)
	}
	want := body{common: common{Title: optional.Null[string]()}, Items: optional.Null[[]item](), Count: 9, Flag: true}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v", got)
	}
	if got.Tags.Set || got.Title.Has() {
		t.Fatalf("absent/null: %+v", got)
	}
}

func TestDecodeReportsEveryProblemInOrder(t *testing.T) {
	cases := []struct {
		name, body string
		want       []string // "field: message", in order
	}{
		{"refused, then unknown by name, then types by field order",
			`{"zzz":1,"status":"X","title":5,"aaa":2,"id":"i","flag":"yes","tags":[1]}`,
			[]string{"id: is read-only", "status: is read-only", "aaa: unknown field", "zzz: unknown field",
				"title: must be a string", "tags: must be an array of strings", "flag: must be a boolean"}},
		{"a refused member that is also a field is not decoded", `{"count":"many"}`, []string{"count: cannot be sent here"}},
		{"nested paths", `{"items":[{"size":1.5},7,{"zip":1,"name":false},null],"main":{"name":[]},"owner":{"x":1}}`,
			[]string{"items[1]: must be an object", "items[3]: must be an object", "items[0].size: must be an integer",
				"items[2].zip: unknown field", "items[2].name: must be a string", "main.name: must be a string", "owner.x: unknown field"}},
		{"wrong containers", `{"items":{"name":"x"},"main":"x","owner":[],"tags":"a"}`,
			[]string{"tags: must be an array of strings", "items: must be an array of objects", "main: must be an object", "owner: must be an object"}},
		{"values decoded by encoding/json", `{"when":"yesterday","Untaged":1}`,
			[]string{"when: has an invalid value", "Untaged: must be a string"}},
		{"names match exactly", `{"Title":"x","ignored":"y","Ignored":"z","hidden":"h"}`,
			[]string{"Ignored: unknown field", "Title: unknown field", "hidden: unknown field", "ignored: unknown field"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got body
			err := Decode([]byte(c.body), &got, refused...)
			e, ok := apperr.As(err)
			if !ok || e.Code != apperr.CodeValidation {
				t.Fatalf("got %v", err)
			}
			var details []string
			for _, d := range e.Details {
				details = append(details, d.Field+": "+d.Message)
			}
			if !reflect.DeepEqual(details, c.want) {
				t.Fatalf("details\n got  %q\n want %q", details, c.want)
			}
			if got.hidden != "" || got.Ignored != "" {
				t.Fatalf("filled a field that is not a member: %+v", got)
			}
		})
	}
}

type leg struct {
	From string `json:"from" required:""`
	To   string `json:"to"`
}

type trip struct {
	Mode  string                 `json:"mode" required:"is required (car or train)"`
	Seats int64                  `json:"seats"`
	Note  optional.Field[string] `json:"note" required:""`
	Legs  []leg                  `json:"legs"`
	Back  *leg                   `json:"back"`
}

// A required member that is absent is reported in field order, among the
// type errors and after the unknown and refused members; null counts as
// present, and a refused member is never also reported as required.
func TestDecodeReportsAbsentRequiredMembersInFieldOrder(t *testing.T) {
	cases := []struct {
		name, body string
		refused    []Refused
		want       []string // "field: message", in order; nil when accepted
	}{
		{"all present", `{"mode":"car","note":"n","legs":[{"from":"a"}],"back":{"from":"b","to":"c"}}`, nil, nil},
		{"null is present", `{"mode":null,"note":null}`, nil, nil},
		{"empty body", `{}`, nil, []string{"mode: is required (car or train)", "note: is required"}},
		{"unknown first, then field order", `{"zz":1,"seats":"x","mode":"car"}`, nil,
			[]string{"zz: unknown field", "seats: must be an integer", "note: is required"}},
		{"between type errors", `{"seats":"x","note":1,"legs":[{"to":"b"},{"from":2}],"back":{}}`, nil,
			[]string{"mode: is required (car or train)", "seats: must be an integer", "note: must be a string",
				"legs[0].from: is required", "legs[1].from: must be a string", "back.from: is required"}},
		{"refused wins", `{"note":"n"}`, []Refused{{"mode", "cannot be sent here"}}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got trip
			err := Decode([]byte(c.body), &got, c.refused...)
			if c.want == nil {
				if err != nil {
					t.Fatalf("got %v", err)
				}
				return
			}
			e, ok := apperr.As(err)
			if !ok || e.Code != apperr.CodeValidation {
				t.Fatalf("got %v", err)
			}
			var details []string
			for _, d := range e.Details {
				details = append(details, d.Field+": "+d.Message)
			}
			if !reflect.DeepEqual(details, c.want) {
				t.Fatalf("details\n got  %q\n want %q", details, c.want)
			}
		})
	}
	var got trip
	if err := Decode([]byte(`{"mode":"train","note":null}`), &got); err != nil || got.Mode != "train" || !got.Note.Null {
		t.Fatalf("decoded %+v, %v", got, err)
	}
}

func TestDecodeBodyErrors(t *testing.T) {
	for raw, code := range map[string]string{``: apperr.CodeInvalidJSON, `{"a":`: apperr.CodeInvalidJSON,
		`[1]`: apperr.CodeValidation, `null`: apperr.CodeValidation, `"x"`: apperr.CodeValidation} {
		var b body
		if err := Decode([]byte(raw), &b); !apperr.IsCode(err, code) {
			t.Errorf("%q: got %v, want %s", raw, err, code)
		}
	}
	r := httptest.NewRequest("POST", "/", strings.NewReader(`{"title":"x"}`))
	r.Header.Set("Content-Type", "text/plain")
	var b body
	if err := ReadInto(r, 1<<10, &b); !apperr.IsCode(err, apperr.CodeUnsupportedMedia) {
		t.Errorf("content type: %v", err)
	}
	r = httptest.NewRequest("POST", "/", strings.NewReader(`{"title":"x","owner":{"name":"o"}}`))
	if err := ReadInto(r, 1<<10, &b); err != nil || b.Title.V != "x" || b.Owner.Name.V != "o" {
		t.Errorf("ReadInto: %+v %v", b, err)
	}
}

func TestIntoAddsToProblemsAlreadyRecorded(t *testing.T) {
	o, err := Parse([]byte(`{"title":1}`))
	if err != nil {
		t.Fatal(err)
	}
	if o.Err() != nil {
		t.Fatal("no problem yet")
	}
	var b body
	o.Into(&b)
	o.Fail("body", "is odd")
	e, _ := apperr.As(o.Err())
	if len(e.Details) != 2 || e.Details[1].Field != "body" {
		t.Fatalf("details: %+v", e.Details)
	}
}

func TestIntoPanicsOnProgrammingErrors(t *testing.T) {
	type twice struct {
		A string `json:"B"`
		B string
	}
	for name, dst := range map[string]any{"non-pointer": body{}, "nil": (*body)(nil), "not a struct": new(int), "twice": &twice{}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			_ = Decode([]byte(`{}`), dst)
		}()
	}
}

// FuzzDecode: any body gives a filled struct or a typed client error
// whose details all name a field (but for a body that is no object); and whenever Decode accepts a body,
// encoding/json (with optional.Field's own UnmarshalJSON) reads it the
// same way.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"title":"T","tags":["a"],"items":[{"name":"x","size":2},{}],"main":{"name":null},"owner":{"size":3},"flag":true}`,
		`{"items":[{"size":1.5},7,{"zip":1}],"main":{"name":[]}}`, `{"title":null,"count":3}`, `{"when":"2026-01-02T03:04:05Z"}`,
		`{}`, `[]`, `null`, `{"a":`, `"x"`, `{"title":"a","title":1}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var got body
		err := Decode([]byte(s), &got, refused...)
		if err != nil {
			e, ok := apperr.As(err)
			if !ok || e.Kind != apperr.KindInvalid {
				t.Fatalf("%q: %v", s, err)
			}
			if e.Code != apperr.CodeValidation {
				return
			}
			if len(e.Details) == 1 && e.Details[0].Message == "Request body must be a JSON object" {
				return
			}
			if len(e.Details) == 0 {
				t.Fatalf("%q: validation error without details: %v", s, err)
			}
			for _, d := range e.Details {
				if (d.Field == "" && d.Message != "unknown field") || d.Message == "" { // "" is a member name too
					t.Fatalf("%q: detail without a field or message: %+v", s, e.Details)
				}
			}
			return
		}
		if hasDuplicateKeys([]byte(s)) {
			return // encoding/json reads each copy in turn, Decode the last
		}
		if !OnlyPlainText(got) {
			t.Fatalf("%q: Decode accepted a control character: %+v", s, got)
		}
		var std body
		if err := json.Unmarshal([]byte(s), &std); err != nil {
			t.Fatalf("%q: Decode accepted, encoding/json did not: %v", s, err)
		}
		if !reflect.DeepEqual(got, std) {
			t.Fatalf("%q:\n Decode        %+v\n encoding/json %+v", s, got, std)
		}
	})
}

// hasDuplicateKeys reports whether any object in the JSON text b names a
// member twice.
func hasDuplicateKeys(b []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(b))
	type frame struct {
		keys     map[string]bool
		isObject bool
		wantKey  bool
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		top := (*frame)(nil)
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.isObject && top.wantKey {
			if k, ok := tok.(string); ok {
				if top.keys[k] {
					return true
				}
				top.keys[k] = true
				top.wantKey = false
				continue
			}
		}
		switch tok {
		case json.Delim('{'):
			if top != nil && top.isObject {
				top.wantKey = true
			}
			stack = append(stack, &frame{keys: map[string]bool{}, isObject: true, wantKey: true})
			continue
		case json.Delim('['):
			if top != nil && top.isObject {
				top.wantKey = true
			}
			stack = append(stack, &frame{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return false
			}
			continue
		}
		if top != nil && top.isObject {
			top.wantKey = true
		}
	}
}
