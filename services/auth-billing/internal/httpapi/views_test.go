package httpapi

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/services/auth-billing/internal/account"
)

// The expected bodies are what the map-based views produced before they
// became structs, and what api/openapi.yaml documents: same names, nulls
// kept, secrets and hashes absent (key order is irrelevant).
func TestViewsKeepTheirJSONShape(t *testing.T) {
	ts := time.Date(2026, 11, 10, 9, 30, 0, 123000000, time.UTC)
	later := ts.Add(2 * time.Hour)
	future, past := time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	org := account.Org{ID: "org_1", Name: "Acme", Plan: account.PlanGrowth, Version: 3, CreatedAt: ts, UpdatedAt: later}
	user := account.User{ID: "usr_1", OrgID: "org_1", Email: "a@b.co", Name: "Ada Obi", Role: principal.MemberAdmin, PasswordHash: []byte("secret hash"), CreatedAt: ts}
	key := account.Key{ID: "key_1", OrgID: "org_1", Env: "live", Scopes: []string{"kyc:read"}, Name: "n",
		Prefix: "mk_live_abcd", Hash: []byte{1, 2}, CreatedAt: ts, Version: 2}
	used, revoked, expiring, expired := key, key, key, key
	used.LastUsedAt = &later
	revoked.RevokedAt = &later
	expiring.ExpiresAt, expiring.ReplacedBy = &future, "key_2"
	expired.ExpiresAt, expired.ReplacedBy = &past, "key_2"
	fresh := account.NewKey{Key: key, Secret: "mk_live_secret"}

	for _, tc := range []struct {
		name string
		view any
		want string
	}{
		{"active key, used", viewKey(used),
			`{"createdAt":"2026-11-10T09:30:00.123Z","displayPrefix":"mk_live_abcd","environment":"live","expiresAt":null,"id":"key_1","lastUsedAt":"2026-11-10T11:30:00.123Z","name":"n","organizationId":"org_1","replacedBy":null,"revokedAt":null,"scopes":["kyc:read"],"status":"active"}`},
		{"revoked key", viewKey(revoked),
			`{"createdAt":"2026-11-10T09:30:00.123Z","displayPrefix":"mk_live_abcd","environment":"live","expiresAt":null,"id":"key_1","lastUsedAt":null,"name":"n","organizationId":"org_1","replacedBy":null,"revokedAt":"2026-11-10T11:30:00.123Z","scopes":["kyc:read"],"status":"revoked"}`},
		{"rolled key, still valid", viewKey(expiring),
			`{"createdAt":"2026-11-10T09:30:00.123Z","displayPrefix":"mk_live_abcd","environment":"live","expiresAt":"2200-01-01T00:00:00.000Z","id":"key_1","lastUsedAt":null,"name":"n","organizationId":"org_1","replacedBy":"key_2","revokedAt":null,"scopes":["kyc:read"],"status":"expiring"}`},
		{"rolled key, past its grace period", viewKey(expired),
			`{"createdAt":"2026-11-10T09:30:00.123Z","displayPrefix":"mk_live_abcd","environment":"live","expiresAt":"2000-01-01T00:00:00.000Z","id":"key_1","lastUsedAt":null,"name":"n","organizationId":"org_1","replacedBy":"key_2","revokedAt":null,"scopes":["kyc:read"],"status":"expired"}`},
		{"new key with its secret", viewNewKey(fresh),
			`{"createdAt":"2026-11-10T09:30:00.123Z","displayPrefix":"mk_live_abcd","environment":"live","expiresAt":null,"id":"key_1","key":"mk_live_secret","lastUsedAt":null,"name":"n","organizationId":"org_1","replacedBy":null,"revokedAt":null,"scopes":["kyc:read"],"status":"active"}`},
		{"key list", viewKeys([]account.Key{key, revoked}),
			`{"keys":[{"createdAt":"2026-11-10T09:30:00.123Z","displayPrefix":"mk_live_abcd","environment":"live","expiresAt":null,"id":"key_1","lastUsedAt":null,"name":"n","organizationId":"org_1","replacedBy":null,"revokedAt":null,"scopes":["kyc:read"],"status":"active"},{"createdAt":"2026-11-10T09:30:00.123Z","displayPrefix":"mk_live_abcd","environment":"live","expiresAt":null,"id":"key_1","lastUsedAt":null,"name":"n","organizationId":"org_1","replacedBy":null,"revokedAt":"2026-11-10T11:30:00.123Z","scopes":["kyc:read"],"status":"revoked"}]}`},
		{"empty key list", viewKeys([]account.Key{}),
			`{"keys":[]}`},
		{"rolled keys", rolledKeyView{Key: viewNewKey(fresh), Previous: viewKey(expiring)},
			`{"key":{"createdAt":"2026-11-10T09:30:00.123Z","displayPrefix":"mk_live_abcd","environment":"live","expiresAt":null,"id":"key_1","key":"mk_live_secret","lastUsedAt":null,"name":"n","organizationId":"org_1","replacedBy":null,"revokedAt":null,"scopes":["kyc:read"],"status":"active"},"previous":{"createdAt":"2026-11-10T09:30:00.123Z","displayPrefix":"mk_live_abcd","environment":"live","expiresAt":"2200-01-01T00:00:00.000Z","id":"key_1","lastUsedAt":null,"name":"n","organizationId":"org_1","replacedBy":"key_2","revokedAt":null,"scopes":["kyc:read"],"status":"expiring"}}`},
		{"organization", viewOrg(org),
			`{"createdAt":"2026-11-10T09:30:00.123Z","id":"org_1","name":"Acme","plan":"growth","planDetails":{"id":"growth","name":"Growth","baseFeeCents":50000,"unitPriceCents":200,"dailyRequests":10000,"testRecordLimit":0,"liveAccess":true,"whiteLabel":false},"updatedAt":"2026-11-10T11:30:00.123Z"}`},
		{"session", viewLogin(account.Login{Token: "tok", User: user, Org: org, CSRF: "csrf", Expires: later}),
			`{"csrfToken":"csrf","expiresAt":"2026-11-10T11:30:00.123Z","organization":{"createdAt":"2026-11-10T09:30:00.123Z","id":"org_1","name":"Acme","plan":"growth","planDetails":{"id":"growth","name":"Growth","baseFeeCents":50000,"unitPriceCents":200,"dailyRequests":10000,"testRecordLimit":0,"liveAccess":true,"whiteLabel":false},"updatedAt":"2026-11-10T11:30:00.123Z"},"role":"admin","user":{"createdAt":"2026-11-10T09:30:00.123Z","email":"a@b.co","id":"usr_1","name":"Ada Obi","role":"admin","totpEnabled":false}}`},
		{"me", viewMe(user, org, account.Session{CSRFToken: "csrf", ExpiresAt: later}),
			`{"csrfToken":"csrf","expiresAt":"2026-11-10T11:30:00.123Z","organization":{"createdAt":"2026-11-10T09:30:00.123Z","id":"org_1","name":"Acme","plan":"growth","planDetails":{"id":"growth","name":"Growth","baseFeeCents":50000,"unitPriceCents":200,"dailyRequests":10000,"testRecordLimit":0,"liveAccess":true,"whiteLabel":false},"updatedAt":"2026-11-10T11:30:00.123Z"},"plans":{"developer":{"id":"developer","name":"Developer","baseFeeCents":0,"unitPriceCents":0,"dailyRequests":100,"testRecordLimit":50,"liveAccess":false,"whiteLabel":false},"enterprise":{"id":"enterprise","name":"Enterprise","baseFeeCents":250000,"unitPriceCents":150,"dailyRequests":0,"testRecordLimit":0,"liveAccess":true,"whiteLabel":true},"growth":{"id":"growth","name":"Growth","baseFeeCents":50000,"unitPriceCents":200,"dailyRequests":10000,"testRecordLimit":0,"liveAccess":true,"whiteLabel":false}},"role":"admin","user":{"createdAt":"2026-11-10T09:30:00.123Z","email":"a@b.co","id":"usr_1","name":"Ada Obi","role":"admin","totpEnabled":false}}`},
		{"logged out", loggedOutView{LoggedOut: true},
			`{"loggedOut":true}`},
		{"resolved key", resolvedKeyView{Key: account.KeyStateOf(key), Organization: account.StateOf(org)},
			`{"key":{"id":"key_1","hash":"0102","orgId":"org_1","environment":"live","scopes":["kyc:read"],"revoked":false,"version":2},"organization":{"id":"org_1","name":"Acme","plan":{"id":"growth","dailyRequests":10000,"testRecordLimit":0,"liveAccess":true},"version":3,"reviewPolicy":"NONE","slaHours":72}}`},
	} {
		got, err := json.Marshal(tc.view)
		if err != nil {
			t.Fatal(err)
		}
		var g, w any
		if err := json.Unmarshal(got, &g); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(tc.want), &w); err != nil {
			t.Fatalf("%s: bad expectation: %v", tc.name, err)
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}
