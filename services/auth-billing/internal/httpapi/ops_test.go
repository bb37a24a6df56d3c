package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/jsonbody"
	"github.com/kycfield/kyc/pkg/optional"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/services/auth-billing/internal/account"
)

func TestDecodeStaffBodies(t *testing.T) {
	const codeRule = "is required: the 6-digit code your authenticator app shows"
	checkDecoder(t, decodeStaffSignIn, []decodeCase[staffSignInRequest]{
		{name: "valid, with the client's address", body: `{"email":"a@b.co","password":"pw","code":"123456"}`,
			want: staffSignInRequest{Email: "a@b.co", Password: "pw", Code: "123456", ClientIP: "203.0.113.9"}},
		{name: "all three, always", body: `{"email":"a@b.co","password":"pw"}`, code: validation, details: []string{"code: " + codeRule}},
		{name: "nothing", body: `{}`, code: validation,
			details: []string{"email: is required", "password: is required", "code: " + codeRule}},
		{name: "a code that is a number", body: `{"email":"a@b.co","password":"pw","code":123456}`, code: validation,
			details: []string{"code: must be a string"}},
		{name: "the address is never read from the body", body: `{"email":"a@b.co","password":"pw","code":"1","ClientIP":"1.2.3.4"}`,
			code: validation, details: []string{"ClientIP: unknown field"}},
	})
	checkDecoder(t, decodeEnrolToken, []decodeCase[enrolTokenRequest]{
		{name: "valid", body: `{"token":"tok"}`, want: enrolTokenRequest{Token: "tok"}},
		{name: "missing", body: `{}`, code: validation, details: []string{"token: is required: the enrolment link's token"}},
	})
	checkDecoder(t, decodeEnrolFinish, []decodeCase[enrolFinishRequest]{
		{name: "valid", body: `{"token":"tok","password":"pw","code":"123456"}`,
			want: enrolFinishRequest{Token: "tok", Password: "pw", Code: "123456", ClientIP: "203.0.113.9"}},
		{name: "no code", body: `{"token":"tok","password":"pw"}`, code: validation, details: []string{"code: " + codeRule}},
	})
	checkDecoder(t, decodeCreateStaff, []decodeCase[createStaffRequest]{
		{name: "valid", body: `{"email":"a@b.co","name":"Ada Obi","role":"admin"}`,
			want: createStaffRequest{Email: "a@b.co", Name: "Ada Obi", Role: "admin"}},
		{name: "missing members are the domain's to refuse", body: `{}`, want: createStaffRequest{}},
		{name: "wrong types and unknown", body: `{"role":1,"password":"x"}`, code: validation,
			details: []string{"password: unknown field", "role: must be a string"}},
	})
}

func TestDecodeOrgSettings(t *testing.T) {
	org := "k1" // the path id decoded() sets
	checkDecoder(t, decodeOrgSettings, []decodeCase[orgSettingsRequest]{
		{name: "both", body: `{"reviewPolicy":"FLAGGED","slaHours":48}`,
			want: orgSettingsRequest{OrgID: org, ReviewPolicy: optional.Of("FLAGGED"), SLAHours: optional.Of(48)}},
		{name: "one", body: `{"slaHours":24}`, want: orgSettingsRequest{OrgID: org, SLAHours: optional.Of(24)}},
		{name: "a fraction of an hour", body: `{"slaHours":1.5}`, code: validation, details: []string{"slaHours: must be an integer"}},
		{name: "hours as text", body: `{"slaHours":"48"}`, code: validation, details: []string{"slaHours: must be an integer"}},
		{name: "plan is not changed here", body: `{"plan":"growth"}`, code: validation, details: []string{"plan: unknown field"}},
	})
	checkDecoder(t, decodeReviewPolicy, []decodeCase[orgSettingsRequest]{
		{name: "policy and hours", body: `{"reviewPolicy":"ALL","slaHours":12}`,
			want: orgSettingsRequest{OrgID: org, ReviewPolicy: optional.Of("ALL"), SLAHours: optional.Of(12)}},
		{name: "the policy is required", body: `{"slaHours":12}`, code: validation, details: []string{"reviewPolicy: is required: NONE, FLAGGED or ALL"}},
		{name: "null policy", body: `{"reviewPolicy":null}`, code: validation, details: []string{"reviewPolicy: is required: NONE, FLAGGED or ALL"}},
	})
}

// The domain's rules for the settings, at their edges.
func TestOrgSettingsValidation(t *testing.T) {
	p := func(s string) *string { return &s }
	n := func(i int) *int { return &i }
	for _, tc := range []struct {
		name    string
		in      account.Settings
		details []string
	}{
		{"policy only", account.Settings{ReviewPolicy: p("NONE")}, nil},
		{"every policy", account.Settings{ReviewPolicy: p("ALL"), SLAHours: n(72)}, nil},
		{"one hour", account.Settings{SLAHours: n(1)}, nil},
		{"thirty days", account.Settings{SLAHours: n(720)}, nil},
		{"nothing", account.Settings{}, []string{"reviewPolicy: give reviewPolicy or slaHours, or both"}},
		{"lower case", account.Settings{ReviewPolicy: p("flagged")}, []string{"reviewPolicy: must be one of NONE, FLAGGED, ALL"}},
		{"zero hours", account.Settings{SLAHours: n(0)}, []string{"slaHours: must be a whole number of hours from 1 to 720"}},
		{"721 hours", account.Settings{SLAHours: n(721)}, []string{"slaHours: must be a whole number of hours from 1 to 720"}},
		{"both wrong", account.Settings{ReviewPolicy: p(""), SLAHours: n(-1)},
			[]string{"reviewPolicy: must be one of NONE, FLAGGED, ALL", "slaHours: must be a whole number of hours from 1 to 720"}},
	} {
		err := tc.in.Validate()
		var got []string
		if e, ok := apperr.As(err); ok {
			for _, d := range e.Details {
				got = append(got, d.Field+": "+d.Message)
			}
		}
		if !reflect.DeepEqual(got, tc.details) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.details)
		}
	}
}

// query decodes the audit log's query string.
func auditQuery(t *testing.T, q string) (account.AuditFilter, []string) {
	t.Helper()
	r := httptest.NewRequest("GET", "/ops/v1/audit?"+q, nil)
	f, err := decodeAudit(context.Background(), r)
	if err == nil {
		return f, nil
	}
	e, ok := apperr.As(err)
	if !ok || e.Code != validation {
		t.Fatalf("%s: %v", q, err)
	}
	var details []string
	for _, d := range e.Details {
		details = append(details, d.Field+": "+d.Message)
	}
	return f, details
}

func TestDecodeAuditFilters(t *testing.T) {
	since := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	cursor := account.AuditCursor{At: since, ID: "evt_1"}
	for _, tc := range []struct {
		name, query string
		want        account.AuditFilter
		details     []string
	}{
		{"none", "", account.AuditFilter{}, nil},
		{"every filter", "actorId=stf_1&action=staff.&orgId=org_0123456789abcdef0123456789abcdef&since=2026-11-26T00:00:00Z&limit=20&cursor=" + cursor.Encode(),
			account.AuditFilter{ActorID: "stf_1", Action: "staff.", OrgID: "org_0123456789abcdef0123456789abcdef", Since: &since, Limit: 20, After: &cursor}, nil},
		{"limit at its edges", "limit=200", account.AuditFilter{Limit: 200}, nil},
		{"limit too high", "limit=201", account.AuditFilter{}, []string{"limit: must be a whole number from 1 to 200"}},
		{"limit zero", "limit=0", account.AuditFilter{}, []string{"limit: must be a whole number from 1 to 200"}},
		{"every problem at once", "orgId=acme&since=yesterday&until=2026-13-01T00:00:00Z&cursor=!!!&limit=x", account.AuditFilter{},
			[]string{"orgId: must be an organization id (org_...)", "since: must be an RFC 3339 time such as 2026-11-26T09:00:00Z",
				"until: must be an RFC 3339 time such as 2026-11-26T09:00:00Z", "limit: must be a whole number from 1 to 200",
				"cursor: is not a cursor this endpoint returned"}},
		{"a cursor of something else", "cursor=" + "b3Jn", account.AuditFilter{}, []string{"cursor: is not a cursor this endpoint returned"}},
	} {
		got, details := auditQuery(t, tc.query)
		if !reflect.DeepEqual(details, tc.details) {
			t.Errorf("%s: %q, want %q", tc.name, details, tc.details)
			continue
		}
		if tc.details == nil && !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

func TestDecodeListOrgs(t *testing.T) {
	for _, tc := range []struct {
		query   string
		want    listOrgsRequest
		invalid bool
	}{
		{"", listOrgsRequest{Limit: 100}, false},
		{"limit=1&cursor=org_0123456789abcdef0123456789abcdef", listOrgsRequest{Limit: 1, After: "org_0123456789abcdef0123456789abcdef"}, false},
		{"limit=201", listOrgsRequest{}, true},
		{"cursor=1' OR 1=1", listOrgsRequest{}, true},
	} {
		got, err := decodeListOrgs(context.Background(), httptest.NewRequest("GET", "/ops/v1/orgs?"+strings.ReplaceAll(tc.query, " ", "%20"), nil))
		if (err != nil) != tc.invalid || (!tc.invalid && got != tc.want) {
			t.Errorf("%q: %+v %v", tc.query, got, err)
		}
	}
}

// FuzzDecodeAudit: any query is a filter or a 400, and a cursor survives
// its own round trip.
func FuzzDecodeAudit(f *testing.F) {
	for _, s := range []string{"", "limit=5&action=staff.", "cursor=MjAyNi0xMS0yNlQwMDowMDowMFp8ZXZ0XzE", "since=2026-11-26T00:00:00%2B01:00", "%zz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		r, err := http.NewRequest("GET", "/ops/v1/audit?"+q, nil)
		if err != nil {
			return
		}
		fl, err := decodeAudit(context.Background(), r)
		if err != nil {
			if e, ok := apperr.As(err); !ok || e.Kind != apperr.KindInvalid {
				t.Fatalf("%q: %v", q, err)
			}
			return
		}
		if fl.After != nil {
			back, err := account.DecodeAuditCursor(fl.After.Encode())
			if err != nil || !back.At.Equal(fl.After.At) || back.ID != fl.After.ID {
				t.Fatalf("%q: cursor %+v came back as %+v %v", q, fl.After, back, err)
			}
		}
	})
}

// FuzzStaffDecoders holds the console's body decoders to the text rule:
// staff names and emails are shown in the console and the audit log.
func FuzzStaffDecoders(f *testing.F) {
	for _, s := range []string{`{"email":"ada@ops.example.ng","name":"Ada Obi","role":"admin"}`,
		`{"email":"a@b.co","password":"correct horse battery","code":"123456"}`, `{"reviewPolicy":"FLAGGED","slaHours":48}`,
		"{\"name\":\"bell\\u0007\"}", `{`, `[]`, `null`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		check := func(v any, code string) {
			if code == "" && !jsonbody.OnlyPlainText(v) {
				t.Fatalf("%q decoded with a control character: %+v", body, v)
			}
		}
		r1, c1, _ := decoded(t, decodeCreateStaff, body)
		check(r1, c1)
		r2, c2, _ := decoded(t, decodeStaffSignIn, body)
		check(r2, c2)
		r3, c3, _ := decoded(t, decodeEnrolFinish, body)
		check(r3, c3)
		r4, c4, _ := decoded(t, decodeOrgSettings, body)
		check(r4, c4)
	})
}

// The staff cookie: never readable by scripts, never sent from another
// site, only under /ops, Secure in production.
func TestStaffCookieAttributes(t *testing.T) {
	exp := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name   string
		token  string
		secure bool
		want   []string
		absent []string
	}{
		{"production", "tok", true, []string{"kyc_staff=tok", "Path=/ops;", "HttpOnly", "Secure", "SameSite=Strict", "Expires="}, nil},
		{"local", "tok", false, []string{"kyc_staff=tok", "Path=/ops;", "HttpOnly", "SameSite=Strict"}, []string{"Secure"}},
		{"sign-out", "", true, []string{"kyc_staff=", "Max-Age=0", "HttpOnly", "Secure", "SameSite=Strict"}, nil},
	} {
		got := staffCookie(tc.token, exp, OpsOptions{SecureCookies: tc.secure}).String()
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", tc.name, got, w)
			}
		}
		for _, a := range tc.absent {
			if strings.Contains(got, a) {
				t.Errorf("%s: %q has %q", tc.name, got, a)
			}
		}
	}
}

func TestOpsViewsKeepTheirJSONShape(t *testing.T) {
	at := time.Date(2026, 11, 26, 9, 0, 0, 123e6, time.UTC)
	m := account.Member{ID: "stf_1", Email: "ada@ops.example.ng", Name: "Ada Obi", Role: principal.RoleAdmin, CreatedAt: at}
	active, disabled := m, m
	active.PasswordHash = []byte("x")
	disabled.PasswordHash, disabled.DisabledAt = []byte("x"), &at
	for _, tc := range []struct {
		name string
		view any
		want string
	}{
		{"invited", viewStaff(m), `{"id":"stf_1","email":"ada@ops.example.ng","name":"Ada Obi","role":"admin","status":"invited","createdAt":"2026-11-26T09:00:00.123Z","disabledAt":null}`},
		{"active", viewStaff(active), `{"id":"stf_1","email":"ada@ops.example.ng","name":"Ada Obi","role":"admin","status":"active","createdAt":"2026-11-26T09:00:00.123Z","disabledAt":null}`},
		{"disabled", viewStaff(disabled), `{"id":"stf_1","email":"ada@ops.example.ng","name":"Ada Obi","role":"admin","status":"disabled","createdAt":"2026-11-26T09:00:00.123Z","disabledAt":"2026-11-26T09:00:00.123Z"}`},
		{"session", viewStaffSession(active, "csrf", at), `{"staff":{"id":"stf_1","email":"ada@ops.example.ng","name":"Ada Obi","role":"admin"},"csrfToken":"csrf","expiresAt":"2026-11-26T09:00:00.123Z"}`},
		{"audit entry by the admin token", viewAudit(account.AuditEntry{ID: "evt_1", ActorID: "admin-token", ActorName: "operators' admin token", Action: "staff.create", Target: "stf_1", At: at}),
			`{"id":"evt_1","actorId":"admin-token","actorName":"operators' admin token","role":null,"action":"staff.create","target":"stf_1","orgId":null,"details":{},"ip":null,"at":"2026-11-26T09:00:00.123Z"}`},
		{"organization", viewOpsOrg(account.Org{ID: "org_1", Name: "Acme", Plan: "growth", UpdatedAt: at}),
			`{"id":"org_1","name":"Acme","plan":"growth","reviewPolicy":"NONE","slaHours":72,"updatedAt":"2026-11-26T09:00:00.123Z"}`},
	} {
		got, _ := json.Marshal(tc.view)
		var g, w any
		_ = json.Unmarshal(got, &g)
		if err := json.Unmarshal([]byte(tc.want), &w); err != nil {
			t.Fatalf("%s: bad expectation: %v", tc.name, err)
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}
