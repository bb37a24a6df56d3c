// Package orgaudit is how a service records what a lender's people and
// keys did to their organization: one org.action event written to the
// outbox in the transaction of the change itself (or, for a refused
// attempt, in a transaction of its own), so an action is audited exactly
// when it happened and a crash loses neither. auth-billing consumes the
// topic into the append-only audit log that owners and admins read in
// the dashboard. It is the lenders' twin of pkg/staffaudit; the two
// identities and their logs never mix.
package orgaudit

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/outbox"
	"github.com/kycfield/kyc/pkg/principal"
)

// Topic is the short name of the topic every service writes actions to;
// deployments prefix it like every topic.
const Topic = event.TopicOrgAudit

// Type is the event type of one action.
const Type = "org.action"

// Outcomes of an action.
const (
	// Done is a change that happened.
	Done = "done"
	// Refused is an attempt the caller's role did not allow.
	Refused = "refused"
)

// Actor kinds.
const (
	ActorUser = "user"
	ActorKey  = "key"
)

// Action is one audited action: who (a member, or one of the
// organization's keys), what (Action, a dotted verb such as
// "key.create", on Target, an id), with what outcome, when, in which
// environment and from which IP.
type Action struct {
	ActorType  string         `json:"actorType"`
	ActorID    string         `json:"actorId"`
	MemberRole string         `json:"memberRole,omitempty"`
	Action     string         `json:"action"`
	Target     string         `json:"target,omitempty"`
	Outcome    string         `json:"outcome"`
	Details    map[string]any `json:"details,omitempty"`
	IP         string         `json:"ip,omitempty"`
	At         time.Time      `json:"at"`
}

// ErrNoActor is returned when ctx carries no lender principal: an
// unaudited change must not happen.
var ErrNoActor = errors.New("orgaudit: no member or key principal in context")

// Of builds the action of ctx's caller, and returns the organization and
// environment it acted in.
func Of(ctx context.Context, action, target, outcome string, details map[string]any) (Action, principal.Principal, error) {
	p, ok := principal.From(ctx)
	if !ok || p.Kind != principal.KindAPIKey || p.OrgID == "" {
		return Action{}, principal.Principal{}, ErrNoActor
	}
	a := Action{Action: action, Target: target, Outcome: outcome, Details: details, IP: p.ClientIP, At: time.Now().UTC()}
	switch {
	case p.UserID != "":
		a.ActorType, a.ActorID, a.MemberRole = ActorUser, p.UserID, string(p.MemberRole)
	case p.KeyID != "":
		a.ActorType, a.ActorID = ActorKey, p.KeyID
	default:
		return Action{}, principal.Principal{}, ErrNoActor
	}
	return a, p, nil
}

// Record writes ctx's caller's action to the outbox in tx. topic is the
// full (prefixed) name of Topic.
func Record(ctx context.Context, tx pgx.Tx, topic, action, target, outcome string, details map[string]any) error {
	a, p, err := Of(ctx, action, target, outcome, details)
	if err != nil {
		return err
	}
	return Add(ctx, tx, topic, p.OrgID, string(p.Env), a)
}

// Add writes a built action of orgID in env to the outbox in tx: for
// actors that reach a service without a principal, such as a member
// signing in.
func Add(ctx context.Context, tx pgx.Tx, topic, orgID, env string, a Action) error {
	e, err := event.New(Type, orgID, env, a)
	if err != nil {
		return err
	}
	return outbox.Add(ctx, tx, outbox.Message{Topic: topic, Key: orgID, Event: e})
}
