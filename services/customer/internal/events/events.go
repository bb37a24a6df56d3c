// Package events holds the customer context's event payloads (published
// through the outbox) and its consumer of the verification context's
// address updates.
package events

import (
	"github.com/kycfield/kyc/pkg/envelope"
	"github.com/kycfield/kyc/services/customer/internal/customer"
)

// CustomerEvent is the data of customer.created, customer.updated,
// customer.deleted and address.added: the customer as the API shows it
// (BVN and NIN masked), plus what changed.
type CustomerEvent struct {
	CustomerID string                `json:"customerId"`
	Customer   customer.View         `json:"customer"`
	Changed    []string              `json:"changedFields,omitempty"`
	Address    *customer.AddressView `json:"address,omitempty"`
	DeletedAt  *string               `json:"deletedAt,omitempty"`
}

// Payload builds the event data of a domain change.
func Payload(ch customer.Change) CustomerEvent {
	e := CustomerEvent{CustomerID: ch.Customer.ID, Customer: customer.ViewOf(ch.Customer), Changed: ch.Changed}
	if ch.Address != nil {
		av := customer.AddressViewOf(*ch.Address)
		e.Address = &av
	}
	if ch.Customer.DeletedAt != nil {
		e.DeletedAt = envelope.Timestamp(*ch.Customer.DeletedAt)
	}
	return e
}
