package billing

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/kycfield/kyc/pkg/apperr"
)

// Tx is what the recording use cases write inside one transaction: the
// inbox's, when a consumer applies another context's event.
type Tx interface {
	// CurrentPlan returns the id of the organization's plan now.
	CurrentPlan(ctx context.Context, orgID string) (string, error)
	// AddBillable stores v unless its address is already billed; it
	// reports whether it did.
	AddBillable(ctx context.Context, v BillableVerification) (bool, error)
	// RaiseDailyRequests sets the organization's count of day to n unless
	// it is already higher.
	RaiseDailyRequests(ctx context.Context, orgID string, day time.Time, n int64) error
	// TouchKey records that a key of the organization was used at t,
	// never moving its last use backwards.
	TouchKey(ctx context.Context, orgID, keyID string, at time.Time) error
}

// Outcome is an address verification outcome reported by the
// verification context.
type Outcome struct {
	EventID, OrgID, Env, CustomerID, AddressID, Status string
	OccurredAt                                         time.Time
}

// BillableVerification is one charged address outcome, priced.
type BillableVerification struct {
	EventID, OrgID, CustomerID, AddressID, Outcome, Plan string
	UnitPriceCents                                       int64
	OccurredAt                                           time.Time
}

// RecordOutcome charges a billable outcome once per address, at the unit
// price of the organization's plan when it is recorded. It reports
// whether a charge was added; outcomes that are not billable add none.
func (s *Service) RecordOutcome(ctx context.Context, tx Tx, o Outcome) (bool, error) {
	if o.AddressID == "" {
		return false, apperr.Validation(apperr.Detail{Field: "addressId", Message: "is required"})
	}
	if !Billable(o.Env, o.Status) {
		return false, nil
	}
	plan, err := tx.CurrentPlan(ctx, o.OrgID)
	if err != nil {
		return false, err
	}
	return tx.AddBillable(ctx, BillableVerification{EventID: o.EventID, OrgID: o.OrgID, CustomerID: o.CustomerID,
		AddressID: o.AddressID, Outcome: o.Status, Plan: plan, UnitPriceCents: s.prices[plan].UnitPriceCents, OccurredAt: o.OccurredAt})
}

// GatewayReport is what one gateway counted for an organization and day:
// the absolute number of requests so far and when each key was last used.
type GatewayReport struct {
	OrgID        string
	Day          time.Time
	Requests     int64
	KeysLastUsed map[string]time.Time
}

// RecordGatewayReport applies a gateway's report. Counts and last-use
// times only move forward, so late and repeated reports change nothing.
func (s *Service) RecordGatewayReport(ctx context.Context, tx Tx, r GatewayReport) error {
	if r.Requests > 0 {
		if err := tx.RaiseDailyRequests(ctx, r.OrgID, r.Day, r.Requests); err != nil {
			return err
		}
	}
	// One order for every transaction: concurrent reports cannot deadlock.
	for _, id := range slices.Sorted(maps.Keys(r.KeysLastUsed)) {
		if err := tx.TouchKey(ctx, r.OrgID, id, r.KeysLastUsed[id]); err != nil {
			return err
		}
	}
	return nil
}
