package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/envelope"
	"github.com/kycfield/kyc/pkg/jsonbody"
	"github.com/kycfield/kyc/pkg/kitserver"
	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/pkg/telemetry"
)

// routes serves the customer routes as Register mounts them, with no
// service behind: a request that fails to decode never needs one.
func routes(t testing.TB) *http.ServeMux {
	t.Helper()
	tel, err := telemetry.New(context.Background(), "customer-test")
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	eps := MakeEndpoints(nil, kitserver.NewInstrumenter(logging.Discard(), tel.Meter("customer")))
	protect := func(h http.Handler, _ ...principal.Kind) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h.ServeHTTP(w, r.WithContext(principal.With(r.Context(), principal.Principal{Kind: principal.KindAPIKey, OrgID: "org_1", Env: principal.EnvTest, KeyID: "key_1"})))
		})
	}
	Register(mux, eps, nil, protect, logging.Discard())
	return mux
}

// refused sends body to a route that must refuse it and returns the
// error it answers with.
func refused(t *testing.T, mux *http.ServeMux, method, path, body string) *envelope.ErrorBody {
	t.Helper()
	w := httptest.NewRecorder()
	mux.ServeHTTP(w, httptest.NewRequest(method, path, strings.NewReader(body)))
	var resp envelope.Response
	if err := json.Unmarshal(w.Body.Bytes(), &resp); err != nil || resp.Error == nil || w.Code != http.StatusBadRequest {
		t.Fatalf("%s %s %.60q: %d %s, want 400", method, path, body, w.Code, w.Body)
	}
	return resp.Error
}

func TestCreateReportsEveryProblem(t *testing.T) {
	mux := routes(t)
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
			e := refused(t, mux, "POST", "/api/v1/customers", c.body)
			if e.Code != c.code {
				t.Fatalf("got %s %+v, want %s", e.Code, e.Details, c.code)
			}
			for _, f := range c.fields {
				if !hasDetail(e.Details, f) {
					t.Errorf("no detail for %s in %+v", f, e.Details)
				}
			}
		})
	}
}

// The details name every problem, in a stable order: read-only members,
// unknown ones by name, then wrong types in field order, nested ones with
// their paths.
func TestCreateDetailsInOrder(t *testing.T) {
	e := refused(t, routes(t), "POST", "/api/v1/customers", `{"zip":1,"status":"X","phone":5,"addresses":[{"city":1,"zip":2},3],
		"documents":[{"fileSize":1.5}],"relogReason":[],"id":"cus_1"}`)
	want := []string{"id: is read-only", "status: is read-only", "zip: unknown field", "phone: must be a string",
		"relogReason: must be a string", "addresses[1]: must be an object", "addresses[0].zip: unknown field",
		"addresses[0].city: must be a string", "documents[0].fileSize: must be an integer"}
	if got := detailList(t, e); !slices.Equal(got, want) {
		t.Fatalf("details\n got  %q\n want %q", got, want)
	}
}

func TestUpdateRefusals(t *testing.T) {
	mux := routes(t)
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
		if got := detailList(t, refused(t, mux, "PUT", "/api/v1/customers/cus_1", c.body)); !slices.Equal(got, c.want) {
			t.Errorf("%s: details\n got  %q\n want %q", c.body, got, c.want)
		}
	}
}

func TestAddAddressRefusals(t *testing.T) {
	e := refused(t, routes(t), "POST", "/api/v1/customers/cus_1/addresses", `{"city":"Ikeja","state":7,"id":"adr_1"}`)
	if got, want := detailList(t, e), []string{"id: unknown field", "state: must be a string"}; !slices.Equal(got, want) {
		t.Fatalf("details %q, want %q", got, want)
	}
}

func detailList(t *testing.T, e *envelope.ErrorBody) []string {
	t.Helper()
	if e.Code != apperr.CodeValidation {
		t.Fatalf("got %s, want a validation error", e.Code)
	}
	var out []string
	for _, d := range e.Details {
		out = append(out, d.Field+": "+d.Message)
	}
	return out
}

// request is a JSON request with a caller, as the gateway hands it on.
func request(method, path, body string) *http.Request {
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	return r.WithContext(principal.With(r.Context(), principal.Principal{Kind: principal.KindAPIKey, OrgID: "org_1", Env: principal.EnvTest, KeyID: "key_1"}))
}

// What the decoders hand the service keeps absent, null and set apart.
func TestDecodersKeepAbsentNullAndSetApart(t *testing.T) {
	c, err := decodeCreate(context.Background(), request("POST", "/api/v1/customers", `{"firstName":"Ngozi","email":null,"addresses":[{"city":"Lagos"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	in := c.in
	if !in.FirstName.Has() || in.FirstName.V != "Ngozi" || !in.Email.Set || !in.Email.Null || in.Phone.Set {
		t.Fatalf("fields: %+v", in.Fields)
	}
	if len(in.Addresses.V) != 1 || in.Addresses.V[0].City.V != "Lagos" || in.Addresses.V[0].State.Set {
		t.Fatalf("addresses: %+v", in.Addresses)
	}
	u, err := decodeUpdate(context.Background(), request("PUT", "/api/v1/customers/cus_1", `{"email":null,"phone":"+2348031234567"}`))
	if err != nil || !u.in.Email.Null || u.in.Phone.V != "+2348031234567" || u.in.FirstName.Set {
		t.Fatalf("update: %+v, %v", u.in, err)
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
	f.Add("{\"firstName\":\"Ngozi\u0000\",\"addresses\":[{\"notes\":\"gate\\r\\ncode \\u001b[2J\"}]}")
	f.Fuzz(func(t *testing.T, body string) {
		// The same body as a create, an update and an appended address:
		// what each accepts holds no control character.
		c, err := decodeCreate(context.Background(), request("POST", "/api/v1/customers", body))
		checkDecoded(t, body, c.in, err)
		u, err := decodeUpdate(context.Background(), request("PUT", "/api/v1/customers/cus_1", body))
		checkDecoded(t, body, u.in, err)
		a, err := decodeAddAddress(context.Background(), request("POST", "/api/v1/customers/cus_1/addresses", body))
		checkDecoded(t, body, a.in, err)
	})
}

func checkDecoded(t *testing.T, body string, in any, err error) {
	t.Helper()
	if err == nil {
		if !jsonbody.OnlyPlainText(in) {
			t.Fatalf("body %q decoded with a control character: %+v", body, in)
		}
		return
	}
	e, ok := apperr.As(err)
	if !ok || (e.Kind != apperr.KindInvalid) {
		t.Fatalf("body %q gave %v", body, err)
	}
	if e.Code == apperr.CodeValidation && len(e.Details) == 0 && !strings.Contains(e.Message, "object") {
		t.Fatalf("validation error without details for %q: %v", body, err)
	}
}
