// Package events holds auth-billing's consumers of other contexts'
// events: address outcomes from verification (the usage ledger) and
// request counts from the gateways (daily usage, key last-used times).
package events

import (
	"context"
	"encoding/json"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/inbox"
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

// Billing records a billable verification for every final live address
// outcome, once per address.
func Billing(prices map[string]billing.PlanPrice) inbox.Handler {
	return func(ctx context.Context, tx pgx.Tx, e event.Event) error {
		if e.Type != TypeAddressUpdated {
			return nil
		}
		var d addressUpdated
		if err := json.Unmarshal(e.Data, &d); err != nil || d.AddressID == "" {
			return inbox.Permanent(err)
		}
		if !billing.Billable(e.Environment, d.Status) {
			return nil
		}
		at := d.OccurredAt
		if at.IsZero() {
			at = e.Time
		}
		_, err := postgres.RecordVerification(ctx, tx, postgres.BillableVerification{EventID: e.ID, OrgID: e.OrgID,
			CustomerID: d.CustomerID, AddressID: d.AddressID, Outcome: d.Status, OccurredAt: at}, prices)
		return err
	}
}

// GatewayUsage is what a gateway reports for one organization and day:
// the absolute request count so far and when each key was last used.
type GatewayUsage struct {
	Day      string               `json:"day"`
	Requests int64                `json:"requests"`
	Keys     map[string]time.Time `json:"keys"`
}

// Usage applies gateway usage reports.
func Usage() inbox.Handler {
	return func(ctx context.Context, tx pgx.Tx, e event.Event) error {
		if e.Type != TypeGatewayUsage {
			return nil
		}
		var d GatewayUsage
		if err := json.Unmarshal(e.Data, &d); err != nil {
			return inbox.Permanent(err)
		}
		day, err := time.Parse(time.DateOnly, d.Day)
		if err != nil {
			return inbox.Permanent(err)
		}
		if d.Requests > 0 {
			if err := postgres.RecordRequests(ctx, tx, e.OrgID, day, d.Requests); err != nil {
				return err
			}
		}
		for id, at := range d.Keys {
			if err := postgres.TouchKey(ctx, tx, e.OrgID, id, at); err != nil {
				return err
			}
		}
		return nil
	}
}
