package httpapi

import (
	"github.com/kycfield/kyc/pkg/apikey"
	"time"

	"github.com/kycfield/kyc/pkg/envelope"
	"github.com/kycfield/kyc/services/auth-billing/internal/account"
)

// The response bodies, as api/openapi.yaml documents them. Timestamps are
// envelope.Timestamp strings; nil pointers are JSON nulls.

// planView is a plan of the catalogue (schema Plan).
type planView struct {
	ID              string `json:"id"`
	Name            string `json:"name"`
	BaseFeeCents    int64  `json:"baseFeeCents"`
	UnitPriceCents  int64  `json:"unitPriceCents"`
	DailyRequests   int    `json:"dailyRequests"`
	TestRecordLimit int    `json:"testRecordLimit"`
	LiveAccess      bool   `json:"liveAccess"`
	WhiteLabel      bool   `json:"whiteLabel"`
}

func viewPlan(p account.Plan) planView {
	return planView{ID: p.ID, Name: p.Name, BaseFeeCents: p.BaseFeeCents, UnitPriceCents: p.UnitPriceCents,
		DailyRequests: p.DailyRequests, TestRecordLimit: p.TestRecordLimit, LiveAccess: p.LiveAccess, WhiteLabel: p.WhiteLabel}
}

// orgView is an organization with its plan spelled out (schema
// Organization).
type orgView struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Plan        string   `json:"plan"`
	PlanDetails planView `json:"planDetails"`
	CreatedAt   *string  `json:"createdAt"`
	UpdatedAt   *string  `json:"updatedAt"`
}

func viewOrg(o account.Org) orgView {
	return orgView{ID: o.ID, Name: o.Name, Plan: o.Plan, PlanDetails: viewPlan(account.Plans[o.Plan]),
		CreatedAt: envelope.Timestamp(o.CreatedAt), UpdatedAt: envelope.Timestamp(o.UpdatedAt)}
}

// keyView is a key as listed (schema ApiKey): never the secret or its
// hash.
type keyView struct {
	ID            string   `json:"id"`
	OrgID         string   `json:"organizationId"`
	Env           string   `json:"environment"`
	Scopes        []string `json:"scopes"`
	Name          string   `json:"name"`
	DisplayPrefix string   `json:"displayPrefix"`
	Status        string   `json:"status"`
	CreatedAt     *string  `json:"createdAt"`
	LastUsedAt    *string  `json:"lastUsedAt"`
	RevokedAt     *string  `json:"revokedAt"`
	ExpiresAt     *string  `json:"expiresAt"`
	ReplacedBy    *string  `json:"replacedBy"`
}

func viewKey(k account.Key) keyView {
	status := "active"
	switch {
	case k.RevokedAt != nil:
		status = "revoked"
	case k.ExpiresAt != nil && !time.Now().Before(*k.ExpiresAt):
		status = "expired"
	case k.ExpiresAt != nil:
		status = "expiring"
	}
	return keyView{ID: k.ID, OrgID: k.OrgID, Env: string(k.Env), Scopes: k.Scopes, Name: k.Name,
		DisplayPrefix: k.Prefix, Status: status, CreatedAt: envelope.Timestamp(k.CreatedAt),
		LastUsedAt: tsPtr(k.LastUsedAt), RevokedAt: tsPtr(k.RevokedAt), ExpiresAt: tsPtr(k.ExpiresAt),
		ReplacedBy: nullIfEmpty(k.ReplacedBy)}
}

// newKeyView is keyView plus the secret, shown once (schema NewApiKey).
type newKeyView struct {
	keyView
	Key string `json:"key"`
}

func viewNewKey(k account.NewKey) newKeyView {
	return newKeyView{keyView: viewKey(k.Key), Key: k.Secret}
}

// keyListView is an organization's keys.
type keyListView struct {
	Keys []keyView `json:"keys"`
}

func viewKeys(ks []account.Key) keyListView {
	v := keyListView{Keys: make([]keyView, len(ks))}
	for i, k := range ks {
		v.Keys[i] = viewKey(k)
	}
	return v
}

// rolledKeyView is a roll's outcome: the new key with its secret and the
// old one, now expiring.
type rolledKeyView struct {
	Key      newKeyView `json:"key"`
	Previous keyView    `json:"previous"`
}

// resolvedKeyView answers the gateway's key resolution; both parts are
// the states auth-billing publishes on auth-events.
type resolvedKeyView struct {
	Key          account.KeyState `json:"key"`
	Organization account.OrgState `json:"organization"`
}

// resolvedSessionView answers the gateway's session check.
type resolvedSessionView struct {
	Session      apikey.SessionState `json:"session"`
	Organization account.OrgState    `json:"organization"`
}

// userView is a dashboard user (schema User).
type userView struct {
	ID          string  `json:"id"`
	Email       string  `json:"email"`
	Name        string  `json:"name"`
	Role        string  `json:"role"`
	TOTPEnabled bool    `json:"totpEnabled"`
	CreatedAt   *string `json:"createdAt"`
}

func viewUser(u account.User) userView {
	return userView{ID: u.ID, Email: u.Email, Name: u.Name, Role: string(u.Role), TOTPEnabled: u.TOTP.Enabled, CreatedAt: envelope.Timestamp(u.CreatedAt)}
}

// sessionView is a dashboard session (schema Session).
type sessionView struct {
	User         userView `json:"user"`
	Organization orgView  `json:"organization"`
	// Role is the user's role (as user.role), what the page shows or
	// hides by.
	Role      string  `json:"role"`
	CSRFToken string  `json:"csrfToken"`
	ExpiresAt *string `json:"expiresAt"`
}

func viewLogin(l account.Login) sessionView {
	return sessionView{User: viewUser(l.User), Organization: viewOrg(l.Org), Role: string(l.User.Role), CSRFToken: l.CSRF, ExpiresAt: envelope.Timestamp(l.Expires)}
}

// meView is the current session plus the plan catalogue (schema Me).
type meView struct {
	sessionView
	Plans map[string]planView `json:"plans"`
}

func viewMe(u account.User, o account.Org, s account.Session) meView {
	plans := make(map[string]planView, len(account.Plans))
	for id, p := range account.Plans {
		plans[id] = viewPlan(p)
	}
	return meView{sessionView: sessionView{User: viewUser(u), Organization: viewOrg(o), Role: string(u.Role), CSRFToken: s.CSRFToken,
		ExpiresAt: envelope.Timestamp(s.ExpiresAt)}, Plans: plans}
}

// loggedOutView answers a log-out (schema LoggedOut).
type loggedOutView struct {
	LoggedOut bool `json:"loggedOut"`
}

func tsPtr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	return envelope.Timestamp(*t)
}

func nullIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
