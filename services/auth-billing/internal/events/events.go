// Package events holds auth-billing's consumers of other contexts'
// events: address outcomes from verification (the usage ledger) and
// request counts from the gateways (daily usage, key last-used times).
// Each decodes the producer's payload into its own struct and calls a
// billing use case in the inbox transaction (see package inbox).
package events

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/services/auth-billing/internal/billing"
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

// AddressOutcomes records a billable verification for every final live
// address outcome, once per address.
func AddressOutcomes(svc *billing.Service, within func(pgx.Tx) billing.Tx) inbox.Handler {
	return func(ctx context.Context, tx pgx.Tx, e event.Event) error {
		if e.Type != TypeAddressUpdated {
			return nil
		}
		var d addressUpdated
		if err := json.Unmarshal(e.Data, &d); err != nil {
			return inbox.Permanent(fmt.Errorf("decode %s: %w", e.Type, err))
		}
		at := d.OccurredAt
		if at.IsZero() {
			at = e.Time
		}
		_, err := svc.RecordOutcome(ctx, within(tx), billing.Outcome{EventID: e.ID, OrgID: e.OrgID, Env: e.Environment,
			CustomerID: d.CustomerID, AddressID: d.AddressID, Status: d.Status, OccurredAt: at})
		return permanentIfInvalid(err)
	}
}

// GatewayUsage is what a gateway reports for one organization and day:
// the absolute request count so far and when each key was last used.
type GatewayUsage struct {
	Day      string               `json:"day"`
	Requests int64                `json:"requests"`
	Keys     map[string]time.Time `json:"keys"`
}

// GatewayReports applies gateway usage reports.
func GatewayReports(svc *billing.Service, within func(pgx.Tx) billing.Tx) inbox.Handler {
	return func(ctx context.Context, tx pgx.Tx, e event.Event) error {
		if e.Type != TypeGatewayUsage {
			return nil
		}
		var d GatewayUsage
		if err := json.Unmarshal(e.Data, &d); err != nil {
			return inbox.Permanent(fmt.Errorf("decode %s: %w", e.Type, err))
		}
		day, err := time.Parse(time.DateOnly, d.Day)
		if err != nil {
			return inbox.Permanent(fmt.Errorf("decode %s: day: %w", e.Type, err))
		}
		return permanentIfInvalid(svc.RecordGatewayReport(ctx, within(tx),
			billing.GatewayReport{OrgID: e.OrgID, Day: day, Requests: d.Requests, KeysLastUsed: d.Keys}))
	}
}

// permanentIfInvalid skips events the use case refuses as invalid: no
// retry can make them valid. Other errors are retried.
func permanentIfInvalid(err error) error {
	if ae, ok := apperr.As(err); ok && ae.Kind == apperr.KindInvalid {
		return inbox.Permanent(err)
	}
	return err
}
