// Package events holds the customer context's event payloads (published
// through the outbox) and its consumer of the verification context's
// address updates.
package events

import (
	"github.com/kycfield/kyc/pkg/envelope"
	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/services/customer/internal/customer"
	"github.com/kycfield/kyc/services/customer/internal/customer/view"
)

// CustomerEvent is the data of customer.created, customer.updated,
// customer.deleted and address.added: the customer as the API shows it
// (BVN and NIN masked), plus what changed.
type CustomerEvent struct {
	CustomerID string        `json:"customerId"`
	Customer   view.Customer `json:"customer"`
	Changed    []string      `json:"changedFields,omitempty"`
	Address    *view.Address `json:"address,omitempty"`
	DeletedAt  *string       `json:"deletedAt,omitempty"`
}

// Payload builds the event data of a domain change.
func Payload(ch customer.Change) CustomerEvent {
	e := CustomerEvent{CustomerID: ch.Customer.ID, Customer: view.Of(ch.Customer), Changed: ch.Changed}
	if ch.Address != nil {
		av := view.OfAddress(*ch.Address)
		e.Address = &av
	}
	if ch.Customer.DeletedAt != nil {
		e.DeletedAt = envelope.Timestamp(*ch.Customer.DeletedAt)
	}
	return e
}

// Of is the event published for a domain change, in the customer's
// organization and environment. The repository is handed Of and writes
// its result to the outbox in the change's own transaction.
func Of(ch customer.Change) (event.Event, error) {
	return event.New(ch.Type, ch.Customer.OrgID, ch.Customer.Env, Payload(ch))
}
