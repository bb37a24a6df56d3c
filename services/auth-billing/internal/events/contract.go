package events

import (
	"context"
	"time"

	"github.com/kycfield/kyc/pkg/apikey"
	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/pkg/orgaudit"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/pkg/staffaudit"
	"github.com/kycfield/kyc/services/auth-billing/internal/account"
)

// Contract is auth-billing's side of the event contracts: samples of the
// organization and key states it publishes on auth-events (made by the
// functions the real events use), and the structs its consumers read.
func Contract() event.Contract {
	return event.Contract{
		Samples: samples,
		Reads:   inbox.Reads(append(Subscriptions(nil, nil), AuditSubscription(), OrgAuditSubscription())...),
	}
}

func samples() []event.Sample {
	at := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	org := account.Org{ID: "org_019a2b3c4d5e6f708192a3b4c5d6e7f8", Name: "Demo Lender", Plan: "growth", Version: 3, CreatedAt: at, UpdatedAt: at}
	key := account.Key{ID: "key_019a2b3c4d5e6f708192a3b4c5d6e7f8", OrgID: org.ID, Env: principal.EnvLive,
		Scopes: []string{principal.ScopeRead, principal.ScopeWrite}, Hash: apikey.Hash("mk_live_sample"), CreatedAt: at, Version: 2}
	rolled := key
	expires := at.Add(24 * time.Hour)
	rolled.ExpiresAt, rolled.Version = &expires, 3
	settings := account.StateOf(org)
	settings.ReviewPolicy, settings.SLAHours = "FLAGGED", 48
	changes := []account.Change{
		{Type: apikey.EventSettingsChanged, OrgID: org.ID, Data: settings},
		{Type: account.EventOrgCreated, OrgID: org.ID, Data: account.StateOf(org)},
		{Type: account.EventPlanChanged, OrgID: org.ID, Data: account.StateOf(org)},
		{Type: account.EventKeyCreated, OrgID: key.OrgID, Env: string(key.Env), Data: account.KeyStateOf(key)},
		{Type: account.EventKeyChanged, OrgID: key.OrgID, Env: string(key.Env), Data: account.KeyStateOf(rolled)},
	}
	out := make([]event.Sample, 0, len(changes))
	for _, c := range changes {
		// As the repository's Emit builds them.
		e, err := event.New(c.Type, c.OrgID, c.Env, c.Data)
		if err != nil {
			panic(err) // a fixed value that cannot be marshalled is a programming error
		}
		out = append(out, event.Sample{Topic: event.TopicAuth, Event: e})
	}
	// A staff action as auth-billing records one (an admin changing the
	// settings above), through staffaudit.Record's own constructor.
	actx := principal.With(context.Background(), principal.Principal{Kind: principal.KindStaff,
		StaffID: "stf_019a2b3c4d5e6f708192a3b4c5d6e7f8", StaffName: "Ada Obi", Role: principal.RoleAdmin, ClientIP: "192.0.2.10"})
	a, err := staffaudit.Of(actx, "org.settings", org.ID, org.ID, map[string]any{"reviewPolicy": "FLAGGED", "slaHours": 48})
	if err != nil {
		panic(err)
	}
	e, err := event.New(staffaudit.Type, org.ID, "", a)
	if err != nil {
		panic(err)
	}
	out = append(out, event.Sample{Topic: event.TopicStaffAudit, Event: e})
	// A member's action as auth-billing records one (a developer creating
	// a key from the dashboard), through the actor the transport makes.
	member := account.Actor{UserID: "usr_019a2b3c4d5e6f708192a3b4c5d6e7f8", OrgID: org.ID, Role: principal.MemberDeveloper, IP: "192.0.2.20"}
	act := member.Action("key.create", key.ID, orgaudit.Done, map[string]any{"name": "backend", "scopes": key.Scopes, "displayPrefix": "mk_live_AbCd"})
	act.At = at
	oe, err := event.New(orgaudit.Type, org.ID, string(key.Env), act)
	if err != nil {
		panic(err)
	}
	return append(out, event.Sample{Topic: event.TopicOrgAudit, Event: oe})
}
