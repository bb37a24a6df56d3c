package principal

import (
	"context"
	"errors"
	"testing"

	"github.com/kycfield/kyc/pkg/apperr"
)

func TestCheckMemberRole(t *testing.T) {
	member := func(r MemberRole) Principal {
		return Principal{Kind: KindAPIKey, OrgID: "org_1", Env: EnvTest, UserID: "usr_1", MemberRole: r}
	}
	key := Principal{Kind: KindAPIKey, OrgID: "org_1", Env: EnvTest, KeyID: "key_1"}
	staff := Principal{Kind: KindStaff, StaffID: "stf_1", Role: RoleAdmin}
	cases := []struct {
		name        string
		p           *Principal
		min         MemberRole
		keysAllowed bool
		ok          bool
	}{
		{"owner may act as admin", ptr(member(MemberOwner)), MemberAdmin, false, true},
		{"admin may act as admin", ptr(member(MemberAdmin)), MemberAdmin, false, true},
		{"developer may not act as admin", ptr(member(MemberDeveloper)), MemberAdmin, false, false},
		{"developer manages keys", ptr(member(MemberDeveloper)), MemberDeveloper, false, true},
		{"viewer may not manage keys", ptr(member(MemberViewer)), MemberDeveloper, true, false},
		{"viewer reads", ptr(member(MemberViewer)), MemberViewer, false, true},
		{"a member without a role is refused", ptr(member("")), MemberViewer, false, false},
		{"a key where keys are allowed", &key, MemberDeveloper, true, true},
		{"a key where only members are", &key, MemberDeveloper, false, false},
		{"staff are never members", &staff, MemberViewer, true, false},
		{"no caller", nil, MemberViewer, true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			if c.p != nil {
				ctx = With(ctx, *c.p)
			}
			err := CheckMemberRole(ctx, c.min, c.keysAllowed)
			if c.ok != (err == nil) {
				t.Fatalf("CheckMemberRole = %v, want ok=%v", err, c.ok)
			}
			var ae *apperr.Error
			if err != nil && (!errors.As(err, &ae) || ae.Code != CodeRoleRequired || ae.Kind != apperr.KindForbidden) {
				t.Fatalf("refusal = %#v, want 403 %s", err, CodeRoleRequired)
			}
		})
	}
}

func TestVerifyRefusesMisplacedMemberRole(t *testing.T) {
	s := signer(t, "0123456789abcdef-secret")
	for name, p := range map[string]Principal{
		"role on a key":       {Kind: KindAPIKey, OrgID: "org_1", Env: EnvTest, KeyID: "key_1", MemberRole: MemberOwner},
		"role on staff":       {Kind: KindStaff, StaffID: "stf_1", Role: RoleAdmin, MemberRole: MemberOwner},
		"unknown member role": {Kind: KindAPIKey, OrgID: "org_1", Env: EnvTest, UserID: "usr_1", MemberRole: "root"},
	} {
		if _, err := s.Verify(s.Sign(p, "GET", "/x"), "GET", "/x"); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: Verify = %v, want ErrInvalid", name, err)
		}
	}
	ok := Principal{Kind: KindAPIKey, OrgID: "org_1", Env: EnvTest, UserID: "usr_1", MemberRole: MemberViewer}
	if got, err := s.Verify(s.Sign(ok, "GET", "/x"), "GET", "/x"); err != nil || got.MemberRole != MemberViewer {
		t.Fatalf("member principal: %+v, %v", got, err)
	}
}

func ptr(p Principal) *Principal { return &p }
