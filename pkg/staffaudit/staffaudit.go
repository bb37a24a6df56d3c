// Package staffaudit is how a service records what our operations staff
// (or the operators' admin token) did: one staff.action event written to
// the outbox in the transaction of the change itself, so an action is
// audited exactly when it happened and a crash loses neither. auth-billing
// consumes the topic into the append-only audit log the console shows.
package staffaudit

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
const Topic = event.TopicStaffAudit

// Type is the event type of one action.
const Type = "staff.action"

// AdminTokenActor names the operators' admin token in the log.
const AdminTokenActor = "admin-token"

// Action is one audited staff action: who (a staff id, or
// AdminTokenActor), what (Action, a dotted verb such as
// "review.approve", on Target, an id), when and from which IP. OrgID is
// the organization the action touched, when it touched one.
type Action struct {
	ActorID   string         `json:"actorId"`
	ActorName string         `json:"actorName,omitempty"`
	Role      string         `json:"role,omitempty"`
	Action    string         `json:"action"`
	Target    string         `json:"target,omitempty"`
	OrgID     string         `json:"orgId,omitempty"`
	Details   map[string]any `json:"details,omitempty"`
	IP        string         `json:"ip,omitempty"`
	At        time.Time      `json:"at"`
}

// ErrNoActor is returned when ctx carries neither a staff principal nor
// the admin token: an unaudited change must not happen.
var ErrNoActor = errors.New("staffaudit: no staff principal or admin token in context")

// Of builds the action of ctx's caller.
func Of(ctx context.Context, action, target, orgID string, details map[string]any) (Action, error) {
	p, ok := principal.From(ctx)
	a := Action{Action: action, Target: target, OrgID: orgID, Details: details, IP: p.ClientIP, At: time.Now().UTC()}
	switch {
	case ok && p.Kind == principal.KindStaff:
		a.ActorID, a.ActorName, a.Role = p.StaffID, p.StaffName, string(p.Role)
	case ok && p.Kind == principal.KindAdminToken:
		a.ActorID, a.ActorName = AdminTokenActor, "operators' admin token"
	default:
		return Action{}, ErrNoActor
	}
	return a, nil
}

// Record writes ctx's caller's action to the outbox in tx. topic is the
// full (prefixed) name of Topic.
func Record(ctx context.Context, tx pgx.Tx, topic, action, target, orgID string, details map[string]any) error {
	a, err := Of(ctx, action, target, orgID, details)
	if err != nil {
		return err
	}
	e, err := event.New(Type, orgID, "", a)
	if err != nil {
		return err
	}
	return outbox.Add(ctx, tx, outbox.Message{Topic: topic, Key: a.ActorID, Event: e})
}
