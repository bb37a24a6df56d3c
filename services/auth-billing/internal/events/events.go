// Package events holds auth-billing's consumers of other contexts'
// events: address outcomes from verification (the usage ledger) and
// request counts from the gateways (daily usage, key last-used times).
// Each is an inbox.On route: the producer's payload decoded into its own
// struct, and a billing use case in the inbox transaction.
package events

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/pkg/orgaudit"
	"github.com/kycfield/kyc/pkg/staffaudit"
	"github.com/kycfield/kyc/services/auth-billing/internal/billing"
	"github.com/kycfield/kyc/services/auth-billing/internal/postgres"
)

// Event types consumed.
const (
	TypeAddressUpdated = "verification.address.updated"
	TypeGatewayUsage   = "gateway.usage"
)

// addressUpdated is the part of verification.address.updated billing
// reads.
type addressUpdated struct {
	CustomerID string    `json:"customerId"`
	AddressID  string    `json:"addressId"`
	Status     string    `json:"status"`
	OccurredAt time.Time `json:"occurredAt"`
}

// GatewayUsage is what a gateway reports for one organization and day:
// the absolute request count so far and when each key was last used.
type GatewayUsage struct {
	Day      string               `json:"day"`
	Requests int64                `json:"requests"`
	Keys     map[string]time.Time `json:"keys"`
}

// Subscriptions are auth-billing's consumers: a billable verification
// for every final live address outcome, once per address (the usage
// ledger), and the gateways' usage reports (daily usage, key last-used
// times).
func Subscriptions(svc *billing.Service, within func(pgx.Tx) billing.Tx) []inbox.Subscription {
	onOutcome := func(ctx context.Context, tx pgx.Tx, e event.Event, d addressUpdated) error {
		at := d.OccurredAt
		if at.IsZero() {
			at = e.Time
		}
		_, err := svc.RecordOutcome(ctx, within(tx), billing.Outcome{EventID: e.ID, OrgID: e.OrgID, Env: e.Environment,
			CustomerID: d.CustomerID, AddressID: d.AddressID, Status: d.Status, OccurredAt: at})
		return err
	}
	onUsage := func(ctx context.Context, tx pgx.Tx, e event.Event, d GatewayUsage) error {
		day, err := time.Parse(time.DateOnly, d.Day)
		if err != nil {
			return inbox.Permanent(fmt.Errorf("decode %s: day: %w", e.Type, err))
		}
		return svc.RecordGatewayReport(ctx, within(tx), billing.GatewayReport{OrgID: e.OrgID, Day: day, Requests: d.Requests, KeysLastUsed: d.Keys})
	}
	return []inbox.Subscription{
		// The sandbox's outcomes (four events per sandbox customer, most of
		// the topic) bill nothing: skipped before a transaction is opened.
		{Group: "auth-billing.billing", Topics: []string{event.TopicVerification}, Routes: []inbox.Route{inbox.On(onOutcome, TypeAddressUpdated)},
			Skip: func(e event.Event) bool { return !billing.BilledEnv(e.Environment) }},
		{Group: "auth-billing.usage", Topics: []string{event.TopicGatewayUsage}, Routes: []inbox.Route{inbox.On(onUsage, TypeGatewayUsage)}},
	}
}

// AuditSubscription keeps the staff audit log: every staff.action event
// any service writes (pkg/staffaudit) becomes one append-only row, keyed
// by the event id.
func AuditSubscription() inbox.Subscription {
	onAction := func(ctx context.Context, tx pgx.Tx, e event.Event, a staffaudit.Action) error {
		return postgres.InsertAudit(ctx, tx, e.ID, a)
	}
	return inbox.Subscription{Group: "auth-billing.staff-audit", Topics: []string{staffaudit.Topic},
		Routes: []inbox.Route{inbox.On(onAction, staffaudit.Type)}}
}

// OrgAuditSubscription keeps the organizations' audit logs: every
// org.action event any service (or the gateway) writes (pkg/orgaudit)
// becomes one append-only row, keyed by the event id.
func OrgAuditSubscription() inbox.Subscription {
	onAction := func(ctx context.Context, tx pgx.Tx, e event.Event, a orgaudit.Action) error {
		return postgres.InsertOrgAudit(ctx, tx, e.ID, e.OrgID, e.Environment, a)
	}
	// Every change a lender's key makes is one event (a POST per customer
	// at the sandbox's pace): up to 16 waiting ones per transaction, each
	// an insert of its own row.
	return inbox.Subscription{Group: "auth-billing.org-audit", Topics: []string{orgaudit.Topic}, Batch: 16,
		Routes: []inbox.Route{inbox.On(onAction, orgaudit.Type)}}
}
