package optional

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestUnmarshalKeepsAbsentNullAndSetApart(t *testing.T) {
	type body struct {
		A Field[string]   `json:"a"`
		B Field[string]   `json:"b"`
		C Field[string]   `json:"c"`
		N Field[int64]    `json:"n"`
		L Field[[]string] `json:"l"`
	}
	var got body
	if err := json.Unmarshal([]byte(`{"b":null,"c":"x","n":7,"l":[]}`), &got); err != nil {
		t.Fatal(err)
	}
	want := body{B: Null[string](), C: Of("x"), N: Of[int64](7), L: Of([]string{})}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	if got.A.Has() || got.B.Has() || !got.C.Has() || !got.B.Set {
		t.Fatalf("Has/Set: %+v", got)
	}
	if err := json.Unmarshal([]byte(`{"n":"7"}`), &got); err == nil {
		t.Fatal("a string decoded into an int64 field")
	}
}

func TestUnmarshalResetsAReusedField(t *testing.T) {
	f := Of("old")
	if err := f.UnmarshalJSON([]byte(" null ")); err != nil || f != Null[string]() {
		t.Fatalf("got %+v, %v", f, err)
	}
}

func TestWalkerMethods(t *testing.T) {
	var f Field[int]
	f.MarkPresent(false)
	*f.ValuePtr().(*int) = 3
	if f != Of(3) {
		t.Fatalf("got %+v", f)
	}
	f.MarkPresent(true)
	if f != Null[int]() || f.Has() {
		t.Fatalf("got %+v", f)
	}
}
