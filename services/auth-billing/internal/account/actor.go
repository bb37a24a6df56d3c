package account

import (
	"context"
	"time"

	"github.com/kycfield/kyc/pkg/orgaudit"
	"github.com/kycfield/kyc/pkg/principal"
)

// Actor is a member of an organization acting from the dashboard: who,
// in which organization, with which role (as read with their session on
// this request), from which address. Dashboard routes reach this
// service as edge calls, without a member principal, so the transport
// puts the actor of the session on the context (WithActor) and every
// change made with it is audited as theirs.
type Actor struct {
	UserID string
	OrgID  string
	Role   principal.MemberRole
	IP     string
}

// ActorOf is u acting from clientIP.
func ActorOf(u User, clientIP string) Actor {
	return Actor{UserID: u.ID, OrgID: u.OrgID, Role: u.Role, IP: clientIP}
}

type actorKey struct{}

// WithActor returns ctx carrying a.
func WithActor(ctx context.Context, a Actor) context.Context {
	return context.WithValue(ctx, actorKey{}, a)
}

// ActorFrom returns the actor WithActor put on ctx.
func ActorFrom(ctx context.Context) (Actor, bool) {
	a, ok := ctx.Value(actorKey{}).(Actor)
	return a, ok && a.UserID != ""
}

// Action is a's action, as pkg/orgaudit records it.
func (a Actor) Action(action, target, outcome string, details map[string]any) orgaudit.Action {
	return orgaudit.Action{ActorType: orgaudit.ActorUser, ActorID: a.UserID, MemberRole: string(a.Role),
		Action: action, Target: target, Outcome: outcome, Details: details, IP: a.IP, At: time.Now().UTC()}
}

// auditDone records ctx's actor's change in tx, when the change was made
// by a member (the operators' admin API has no member to name and is not
// in the lender's log). env is the environment acted in ("" for the
// organization as a whole).
func auditDone(ctx context.Context, tx Tx, action, target, env string, details map[string]any) error {
	a, ok := ActorFrom(ctx)
	if !ok {
		return nil
	}
	return tx.OrgAudit(ctx, a.OrgID, env, a.Action(action, target, orgaudit.Done, details))
}

// Authorize returns nil when a holds min or a more powerful role.
// Otherwise it records the refused attempt at action on target, in a
// transaction of its own, and returns 403 ROLE_REQUIRED.
func (d *Dashboard) Authorize(ctx context.Context, a Actor, min principal.MemberRole, action, target string) error {
	if a.Role.AtLeast(min) {
		return nil
	}
	return d.refuse(ctx, a, min, action, target, nil)
}

// refuse audits a's refused attempt and returns ROLE_REQUIRED for min. A
// failure to record it does not turn the refusal into a 5xx: nothing
// changed, and the caller is told no either way.
func (d *Dashboard) refuse(ctx context.Context, a Actor, min principal.MemberRole, action, target string, details map[string]any) error {
	_ = d.store.Atomic(ctx, func(tx Tx) error {
		return tx.OrgAudit(ctx, a.OrgID, "", a.Action(action, target, orgaudit.Refused, details))
	})
	return roleRequired(ctx, a, min)
}

// roleRequired is pkg/principal's ROLE_REQUIRED error for min, so that
// the services and this one word it alike.
func roleRequired(ctx context.Context, a Actor, min principal.MemberRole) error {
	p := principal.Principal{Kind: principal.KindAPIKey, OrgID: a.OrgID, UserID: a.UserID, MemberRole: a.Role}
	if err := principal.CheckMemberRole(principal.With(ctx, p), min, false); err != nil {
		return err
	}
	// a holds min after all (a caller's mistake): refuse with the same code.
	return principal.CheckMemberRole(principal.With(ctx, principal.Principal{}), min, false)
}
