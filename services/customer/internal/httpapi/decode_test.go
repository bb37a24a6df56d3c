package httpapi

import (
	"strings"
	"testing"

	"github.com/kycfield/kyc/pkg/apperr"
)

func TestDecodeCreateReportsEveryProblem(t *testing.T) {
	cases := []struct {
		name   string
		body   string
		code   string
		fields []string // fields named in error.details
	}{
		{"malformed", `{"firstName":`, apperr.CodeInvalidJSON, nil},
		{"empty", ``, apperr.CodeInvalidJSON, nil},
		{"array", `[1,2]`, apperr.CodeValidation, nil},
		{"unknown field", `{"firstName":"Ngozi","nickname":"N"}`, apperr.CodeValidation, []string{"nickname"}},
		{"read-only field", `{"id":"cus_x","status":"VERIFIED"}`, apperr.CodeValidation, []string{"id", "status"}},
		{"wrong types", `{"firstName":5,"addresses":"Lagos"}`, apperr.CodeValidation, []string{"firstName", "addresses"}},
		{"nested unknown", `{"addresses":[{"city":"Lagos","zip":"1"}]}`, apperr.CodeValidation, []string{"addresses[0].zip"}},
		{"nested wrong type", `{"documents":[{"documentType":1, "fileSize":"big"}]}`, apperr.CodeValidation, []string{"documents[0].documentType", "documents[0].fileSize"}},
		{"non-object address", `{"addresses":[1]}`, apperr.CodeValidation, []string{"addresses[0]"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := DecodeCreate([]byte(c.body))
			e, ok := apperr.As(err)
			if !ok || e.Code != c.code {
				t.Fatalf("got %v, want %s", err, c.code)
			}
			for _, f := range c.fields {
				found := false
				for _, d := range e.Details {
					found = found || d.Field == f
				}
				if !found {
					t.Errorf("no detail for %s in %+v", f, e.Details)
				}
			}
		})
	}
}

func TestDecodeCreateKeepsAbsentNullAndSetApart(t *testing.T) {
	in, err := DecodeCreate([]byte(`{"firstName":"Ngozi","email":null,"addresses":[{"city":"Lagos"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if !in.FirstName.Has() || in.FirstName.V != "Ngozi" || !in.Email.Set || !in.Email.Null || in.Phone.Set {
		t.Fatalf("fields: %+v", in.Fields)
	}
	if len(in.Addresses.V) != 1 || in.Addresses.V[0].City.V != "Lagos" || in.Addresses.V[0].State.Set {
		t.Fatalf("addresses: %+v", in.Addresses)
	}
}

// FuzzDecodeCreate: any body decodes to an input or to a client error;
// never a panic, never an internal error.
func FuzzDecodeCreate(f *testing.F) {
	for _, s := range []string{
		`{"firstName":"Ngozi","lastName":"Okafor","phone":"+2348031234567","addresses":[{"streetName":"A","city":"B","state":"C"}]}`,
		`{"documents":[{"documentType":"ID_CARD","fileSize":10}]}`, `{}`, `[]`, `null`, `{"a":`, `"x"`,
		`{"addresses":[{"city":{"nested":true}}],"relogReason":7}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		_, err := DecodeCreate([]byte(body))
		if err == nil {
			return
		}
		e, ok := apperr.As(err)
		if !ok || (e.Kind != apperr.KindInvalid) {
			t.Fatalf("body %q gave %v", body, err)
		}
		if e.Code == apperr.CodeValidation && len(e.Details) == 0 && !strings.Contains(e.Message, "object") {
			t.Fatalf("validation error without details for %q: %v", body, err)
		}
	})
}
