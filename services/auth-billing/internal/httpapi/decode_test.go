package httpapi

import (
	"context"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/jsonbody"
	"github.com/kycfield/kyc/pkg/optional"
	"github.com/kycfield/kyc/pkg/principal"
)

// decoded runs dec on a POST of body to /keys/k1 (path id "k1") and
// returns the request, or the error's code and its details as
// "field: message" in order.
func decoded[Req any](t *testing.T, dec func(context.Context, *http.Request) (Req, error), body string) (Req, string, []string) {
	t.Helper()
	r := httptest.NewRequest("POST", "/keys/k1", strings.NewReader(body))
	r.SetPathValue("id", "k1")
	r = r.WithContext(principal.With(r.Context(), principal.Principal{Kind: principal.KindEdge, ClientIP: "203.0.113.9"}))
	req, err := dec(r.Context(), r)
	if err == nil {
		return req, "", nil
	}
	e, ok := apperr.As(err)
	if !ok {
		t.Fatalf("untyped error %v", err)
	}
	var details []string
	for _, d := range e.Details {
		details = append(details, d.Field+": "+d.Message)
	}
	return req, e.Code, details
}

type decodeCase[Req any] struct {
	name, body string
	want       Req      // when accepted
	code       string   // when refused
	details    []string // when refused
}

func checkDecoder[Req any](t *testing.T, dec func(context.Context, *http.Request) (Req, error), cases []decodeCase[Req]) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, code, details := decoded(t, dec, c.body)
			if code != c.code || !reflect.DeepEqual(details, c.details) {
				t.Fatalf("got %s %q, want %s %q", code, details, c.code, c.details)
			}
			if c.code == "" && !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got %+v, want %+v", got, c.want)
			}
		})
	}
}

const validation = apperr.CodeValidation

var theOrg = func(*http.Request) string { return "org_1" }

// The details and their order are those the decoders gave before they
// decoded into typed structs: refused and unknown members first (by
// name), then each member's problem in body order.
func TestDecodeCreateKey(t *testing.T) {
	checkDecoder(t, decodeCreateKey(theOrg), []decodeCase[createKeyRequest]{
		{name: "valid", body: `{"environment":"live","scopes":["kyc:read"],"name":"backend"}`,
			want: createKeyRequest{OrgID: "org_1", Env: "live", Scopes: []string{"kyc:read"}, Name: "backend"}},
		{name: "null environment is left to the domain", body: `{"environment":null,"scopes":null}`,
			want: createKeyRequest{OrgID: "org_1"}},
		{name: "missing environment", body: `{}`, code: validation,
			details: []string{"environment: is required (test or live)"}},
		{name: "missing environment among other problems", body: `{"zz":1,"scopes":"kyc:read","name":7,"aa":true}`, code: validation,
			details: []string{"aa: unknown field", "zz: unknown field", "environment: is required (test or live)",
				"scopes: must be an array of strings", "name: must be a string"}},
		{name: "wrong types", body: `{"environment":1,"scopes":[1]}`, code: validation,
			details: []string{"environment: must be a string", "scopes: must be an array of strings"}},
		{name: "not an object", body: `["live"]`, code: validation, details: []string{": Request body must be a JSON object"}},
		{name: "malformed", body: `{"environment":`, code: apperr.CodeInvalidJSON},
	})
}

func TestDecodeChangePlan(t *testing.T) {
	checkDecoder(t, decodeChangePlan(theOrg), []decodeCase[changePlanRequest]{
		{name: "valid", body: `{"plan":"growth"}`, want: changePlanRequest{OrgID: "org_1", Plan: optional.Of("growth")}},
		{name: "an unknown plan is the domain's to refuse", body: `{"plan":"gold"}`,
			want: changePlanRequest{OrgID: "org_1", Plan: optional.Of("gold")}},
		{name: "missing", body: `{}`, code: validation, details: []string{"plan: is required"}},
		{name: "null", body: `{"plan":null}`, code: validation, details: []string{"plan: is required"}},
		{name: "wrong type", body: `{"plan":1}`, code: validation, details: []string{"plan: must be a string"}},
		// Only a body with no other problem is told the plan is missing.
		{name: "unknown member, plan missing", body: `{"tier":"growth"}`, code: validation, details: []string{"tier: unknown field"}},
		{name: "unknown member, plan set", body: `{"plan":"growth","x":1}`, code: validation, details: []string{"x: unknown field"}},
	})
}

func TestDecodeRoll(t *testing.T) {
	checkDecoder(t, decodeRoll(theOrg), []decodeCase[rollKeyRequest]{
		{name: "valid", body: `{"gracePeriodHours":24}`, want: rollKeyRequest{OrgID: "org_1", KeyID: "k1", GraceHours: 24}},
		{name: "absent is no grace", body: `{}`, want: rollKeyRequest{OrgID: "org_1", KeyID: "k1"}},
		{name: "null is no grace", body: `{"gracePeriodHours":null}`, want: rollKeyRequest{OrgID: "org_1", KeyID: "k1"}},
		{name: "upper bound", body: `{"gracePeriodHours":72}`, want: rollKeyRequest{OrgID: "org_1", KeyID: "k1", GraceHours: 72}},
		{name: "too long", body: `{"gracePeriodHours":73}`, code: validation, details: []string{"gracePeriodHours: must be between 0 and 72"}},
		{name: "negative", body: `{"gracePeriodHours":-1}`, code: validation, details: []string{"gracePeriodHours: must be between 0 and 72"}},
		{name: "would overflow a duration", body: `{"gracePeriodHours":9223372036854775807}`, code: validation,
			details: []string{"gracePeriodHours: must be between 0 and 72"}},
		{name: "fraction", body: `{"gracePeriodHours":1.5}`, code: validation, details: []string{"gracePeriodHours: must be an integer"}},
		{name: "string", body: `{"gracePeriodHours":"24"}`, code: validation, details: []string{"gracePeriodHours: must be an integer"}},
		{name: "beyond int64", body: `{"gracePeriodHours":99999999999999999999}`, code: validation,
			details: []string{"gracePeriodHours: must be an integer"}},
		{name: "unknown member before the type", body: `{"hours":2,"gracePeriodHours":"x"}`, code: validation,
			details: []string{"hours: unknown field", "gracePeriodHours: must be an integer"}},
	})
}

func TestDecodeCreateOrg(t *testing.T) {
	checkDecoder(t, decodeCreateOrg, []decodeCase[createOrgRequest]{
		{name: "valid", body: `{"name":"Acme","plan":"growth"}`, want: createOrgRequest{Name: "Acme", Plan: "growth"}},
		{name: "all optional here", body: `{"name":null}`, want: createOrgRequest{}},
		{name: "wrong types and unknown", body: `{"plan":2,"name":1,"owner":"x"}`, code: validation,
			details: []string{"owner: unknown field", "name: must be a string", "plan: must be a string"}},
	})
}

func TestDecodeSignUpAndLogIn(t *testing.T) {
	checkDecoder(t, decodeSignUp, []decodeCase[signUpRequest]{
		{name: "valid", body: `{"organizationName":"Acme","email":"a@b.co","password":"pw"}`,
			want: signUpRequest{OrgName: "Acme", Email: "a@b.co", Password: "pw"}},
		{name: "missing members are the domain's to refuse", body: `{}`, want: signUpRequest{}},
		{name: "wrong types and unknown", body: `{"password":1,"email":true,"organizationName":[],"plan":"growth","name":"x"}`, code: validation,
			details: []string{"name: unknown field", "plan: unknown field", "organizationName: must be a string",
				"email: must be a string", "password: must be a string"}},
	})
	checkDecoder(t, decodeLogIn, []decodeCase[logInRequest]{
		{name: "valid, with the client's address", body: `{"email":"a@b.co","password":"pw"}`,
			want: logInRequest{Email: "a@b.co", Password: "pw", ClientIP: "203.0.113.9"}},
		{name: "the address is never read from the body", body: `{"email":"a@b.co","ClientIP":"1.2.3.4"}`, code: validation,
			details: []string{"ClientIP: unknown field"}},
		{name: "wrong types", body: `{"password":1,"email":2}`, code: validation,
			details: []string{"email: must be a string", "password: must be a string"}},
		{name: "with a TOTP code", body: `{"email":"a@b.co","password":"pw","otp":"123456"}`,
			want: logInRequest{Email: "a@b.co", Password: "pw", OTP: "123456", ClientIP: "203.0.113.9"}},
		{name: "a TOTP code that is a number", body: `{"email":"a@b.co","password":"pw","otp":123456}`, code: validation,
			details: []string{"otp: must be a string"}},
	})
	checkDecoder(t, decodeTOTPCode, []decodeCase[totpCode]{
		{name: "valid", body: `{"code":"123456"}`, want: totpCode{Code: "123456"}},
		{name: "missing", body: `{}`, code: validation, details: []string{"code: is required: the 6-digit code your authenticator app shows"}},
		{name: "a number", body: `{"code":123456}`, code: validation, details: []string{"code: must be a string"}},
	})
}

func TestDecodeResolveIsLenient(t *testing.T) {
	hash := strings.Repeat("ab", 32)
	checkDecoder(t, decodeResolve, []decodeCase[resolveRequest]{
		{name: "valid, other members ignored", body: `{"hash":"` + hash + `","extra":1}`,
			want: resolveRequest{Hash: []byte(strings.Repeat("\xab", 32))}},
		{name: "missing", body: `{}`, code: validation, details: []string{"hash: must be a hex SHA-256"}},
		{name: "wrong type", body: `{"hash":1}`, code: validation, details: []string{"hash: must be a hex SHA-256"}},
		{name: "too short", body: `{"hash":"abcd"}`, code: validation, details: []string{"hash: must be a hex SHA-256"}},
	})
}

// FuzzDecoders: any body given to the dashboard's and the operators'
// decoders is a request or a client error (never a panic, never a 5xx),
// and what they accept holds no control character: organization and key
// names and emails are shown in the dashboard and kycctl.
func FuzzDecoders(f *testing.F) {
	for _, s := range []string{`{"organizationName":"Ade Loans","email":"ada@example.com","password":"correct horse battery"}`,
		`{"environment":"live","scopes":["kyc:read"],"name":"backend"}`, `{"name":"Ade Loans","plan":"growth"}`,
		"{\"name\":\"bell\\u0007\"}", "{\"organizationName\":\"\\u001b[2J\"}", `{`, `[]`, `null`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		check := func(v any, code string) {
			if code == "" && !jsonbody.OnlyPlainText(v) {
				t.Fatalf("%q decoded with a control character: %+v", body, v)
			}
		}
		r1, c1, _ := decoded(t, decodeSignUp, body)
		check(r1, c1)
		r2, c2, _ := decoded(t, decodeLogIn, body)
		check(r2, c2)
		r3, c3, _ := decoded(t, decodeCreateKey(theOrg), body)
		check(r3, c3)
		r4, c4, _ := decoded(t, decodeCreateOrg, body)
		check(r4, c4)
	})
}
