package httpapi

import (
	"slices"
	"strings"
	"testing"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/jsonbody"
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

// The details name every problem, in a stable order: read-only members,
// unknown ones by name, then wrong types in field order, nested ones with
// their paths.
func TestDecodeCreateDetailsInOrder(t *testing.T) {
	_, err := DecodeCreate([]byte(`{"zip":1,"status":"X","phone":5,"addresses":[{"city":1,"zip":2},3],
		"documents":[{"fileSize":1.5}],"relogReason":[],"id":"cus_1"}`))
	want := []string{"id: is read-only", "status: is read-only", "zip: unknown field", "phone: must be a string",
		"relogReason: must be a string", "addresses[1]: must be an object", "addresses[0].zip: unknown field",
		"addresses[0].city: must be a string", "documents[0].fileSize: must be an integer"}
	if got := detailList(t, err); !slices.Equal(got, want) {
		t.Fatalf("details\n got  %q\n want %q", got, want)
	}
}

func TestDecodeUpdate(t *testing.T) {
	cases := []struct {
		body string
		want []string
	}{
		{`{}`, []string{"body: must contain at least one field to update"}},
		{`{"addresses":[],"relogReason":"x","documents":null,"createdAt":"x","nick":1,"firstName":2}`, []string{
			"createdAt: is read-only",
			"addresses: cannot be changed with PUT; append one with POST /api/v1/customers/{id}/addresses",
			"documents: cannot be changed with PUT; append one with POST /api/v1/customers/{id}/documents",
			"relogReason: can only be sent when creating a customer",
			"nick: unknown field", "firstName: must be a string"}},
	}
	for _, c := range cases {
		o, err := jsonbody.Parse([]byte(c.body))
		if err != nil {
			t.Fatal(err)
		}
		_, err = updateFrom(o)
		if got := detailList(t, err); !slices.Equal(got, c.want) {
			t.Errorf("%s: details\n got  %q\n want %q", c.body, got, c.want)
		}
	}
	o, _ := jsonbody.Parse([]byte(`{"email":null,"phone":"+2348031234567"}`))
	in, err := updateFrom(o)
	if err != nil || !in.Email.Null || in.Phone.V != "+2348031234567" || in.FirstName.Set {
		t.Fatalf("got %+v, %v", in, err)
	}
}

func TestDecodeAddress(t *testing.T) {
	o, _ := jsonbody.Parse([]byte(`{"city":"Ikeja","state":7,"id":"adr_1"}`))
	_, err := addressFrom(o)
	if got, want := detailList(t, err), []string{"id: unknown field", "state: must be a string"}; !slices.Equal(got, want) {
		t.Fatalf("details %q, want %q", got, want)
	}
}

func detailList(t *testing.T, err error) []string {
	t.Helper()
	e, ok := apperr.As(err)
	if !ok || e.Code != apperr.CodeValidation {
		t.Fatalf("got %v, want a validation error", err)
	}
	var out []string
	for _, d := range e.Details {
		out = append(out, d.Field+": "+d.Message)
	}
	return out
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
