package httpapi

import (
	"context"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/jsonbody"
	"github.com/kycfield/kyc/services/auth-billing/internal/account"
)

func TestDecodeTeamBodies(t *testing.T) {
	checkDecoder(t, decodeInvite, []decodeCase[inviteRequest]{
		{name: "valid", body: `{"email":"a@b.co","role":"viewer"}`, want: inviteRequest{Email: "a@b.co", Role: "viewer"}},
		{name: "missing members are the domain's to refuse", body: `{}`, want: inviteRequest{}},
		{name: "unknown and wrong types", body: `{"role":1,"token":"x"}`, code: validation,
			details: []string{"token: unknown field", "role: must be a string"}},
	})
	checkDecoder(t, decodeMemberRole, []decodeCase[memberRoleRequest]{
		{name: "valid", body: `{"role":"admin"}`, want: memberRoleRequest{ID: "k1", Role: "admin"}},
		{name: "no role", body: `{}`, code: validation, details: []string{"role: is required: owner, admin, developer or viewer"}},
	})
	checkDecoder(t, decodeInvitationToken, []decodeCase[invitationTokenRequest]{
		{name: "valid, with the client's address", body: `{"token":"tok"}`, want: invitationTokenRequest{Token: "tok", ClientIP: "203.0.113.9"}},
		{name: "no token", body: `{}`, code: validation, details: []string{"token: is required: the invitation link's token"}},
	})
	checkDecoder(t, decodeAcceptInvitation, []decodeCase[acceptInvitationRequest]{
		{name: "valid", body: `{"token":"tok","name":"Ada Obi","password":"pw"}`,
			want: acceptInvitationRequest{Token: "tok", Name: "Ada Obi", Password: "pw", ClientIP: "203.0.113.9"}},
		{name: "the role is the invitation's, never the body's", body: `{"token":"tok","role":"owner"}`, code: validation,
			details: []string{"role: unknown field"}},
	})
}

func TestDecodeOrgAuditFilters(t *testing.T) {
	from := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	cursor := account.AuditCursor{At: from, ID: "evt_1"}
	for _, tc := range []struct {
		name, query string
		want        account.OrgAuditFilter
		details     []string
	}{
		{"none", "", account.OrgAuditFilter{}, nil},
		{"every filter", "actor=usr_1&action=key.&outcome=refused&environment=test&from=2026-11-26T00:00:00Z&limit=20&cursor=" + cursor.Encode(),
			account.OrgAuditFilter{ActorID: "usr_1", Action: "key.", Outcome: "refused", Env: "test", Since: &from, Limit: 20, After: &cursor}, nil},
		{"every problem at once", "outcome=maybe&environment=prod&from=yesterday&to=x&limit=201&cursor=!!!", account.OrgAuditFilter{},
			[]string{"outcome: must be done or refused", "environment: must be test or live",
				"from: must be an RFC 3339 time such as 2026-11-26T09:00:00Z", "to: must be an RFC 3339 time such as 2026-11-26T09:00:00Z",
				"limit: must be a whole number from 1 to 200", "cursor: is not a cursor this endpoint returned"}},
	} {
		f, err := decodeOrgAudit(context.Background(), httptest.NewRequest("GET", "/dashboard/v1/audit?"+tc.query, nil))
		var details []string
		if e, ok := apperr.As(err); ok {
			for _, d := range e.Details {
				details = append(details, d.Field+": "+d.Message)
			}
		}
		if !reflect.DeepEqual(details, tc.details) {
			t.Errorf("%s: %q, want %q", tc.name, details, tc.details)
			continue
		}
		if tc.details == nil && !reflect.DeepEqual(f, tc.want) {
			t.Errorf("%s: %+v, want %+v", tc.name, f, tc.want)
		}
	}
}

// FuzzTeamDecoders holds the team's body decoders to the text rule:
// names and emails are shown on the team page and in the audit log.
func FuzzTeamDecoders(f *testing.F) {
	for _, s := range []string{`{"email":"a@b.co","role":"viewer"}`, `{"token":"t","name":"Ada Obi","password":"correct horse battery"}`,
		"{\"name\":\"bell\\u0007\"}", `{`, `[]`, `null`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		check := func(v any, code string) {
			if code == "" && !jsonbody.OnlyPlainText(v) {
				t.Fatalf("%q decoded with a control character: %+v", body, v)
			}
		}
		r1, c1, _ := decoded(t, decodeInvite, body)
		check(r1, c1)
		r2, c2, _ := decoded(t, decodeAcceptInvitation, body)
		check(r2, c2)
		r3, c3, _ := decoded(t, decodeMemberRole, body)
		check(r3, c3)
	})
}
