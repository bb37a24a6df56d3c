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
	"github.com/kycfield/kyc/services/customer/internal/customer"
)

// TypeAddressUpdated is published by the verification context on every
// address transition.
const TypeAddressUpdated = "verification.address.updated"

// AddressUpdated is the data of verification.address.updated that this
// context reads. Sequence increases with every transition of the address.
type AddressUpdated struct {
	CustomerID       string          `json:"customerId"`
	AddressID        string          `json:"addressId"`
	Status           string          `json:"status"`
	VerificationData json.RawMessage `json:"verificationData,omitempty"`
	Sequence         int64           `json:"sequence"`
	OccurredAt       time.Time       `json:"occurredAt"`
}

// Verification keeps the status read model up to date from the
// verification context's events.
func Verification(svc *customer.Service, within func(pgx.Tx) customer.Tx) inbox.Handler {
	return func(ctx context.Context, tx pgx.Tx, e event.Event) error {
		if e.Type != TypeAddressUpdated {
			return nil
		}
		var d AddressUpdated
		if err := json.Unmarshal(e.Data, &d); err != nil {
			return inbox.Permanent(fmt.Errorf("decode %s: %w", e.Type, err))
		}
		if string(d.VerificationData) == "null" {
			d.VerificationData = nil
		}
		_, err := svc.ApplyAddressUpdate(ctx, within(tx), customer.AddressUpdate{OrgID: e.OrgID, Env: e.Environment,
			CustomerID: d.CustomerID, AddressID: d.AddressID, Status: d.Status, VerificationData: d.VerificationData,
			Sequence: d.Sequence, OccurredAt: d.OccurredAt})
		if ae, ok := apperr.As(err); ok && ae.Kind == apperr.KindInvalid {
			return inbox.Permanent(err)
		}
		return err
	}
}
