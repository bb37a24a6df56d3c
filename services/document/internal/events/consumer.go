// Package events holds the document context's consumer of the customer
// context's events: it keeps the read model of which customers exist.
package events

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/services/document/internal/document"
)

// Customer event types this context reads.
const (
	TypeCustomerCreated = "customer.created"
	TypeCustomerDeleted = "customer.deleted"
)

// customerRef is the part of customer.created / customer.deleted this
// context reads: the customer's id (organization and environment are on
// the envelope).
type customerRef struct {
	CustomerID string `json:"customerId"`
}

// Subscriptions keep the read model in step: a created customer becomes
// known, a deleted one gone for good.
func Subscriptions(svc *document.Service, within func(pgx.Tx) document.Tx) []inbox.Subscription {
	on := func(ctx context.Context, tx pgx.Tx, e event.Event, d customerRef) error {
		if d.CustomerID == "" || e.OrgID == "" || e.Environment == "" {
			return inbox.Permanent(fmt.Errorf("%s: customerId, orgId or environment missing", e.Type))
		}
		c := document.Customer{ID: d.CustomerID, OrgID: e.OrgID, Env: e.Environment}
		if e.Type == TypeCustomerDeleted {
			return svc.CustomerDeleted(ctx, within(tx), c)
		}
		return svc.CustomerCreated(ctx, within(tx), c)
	}
	// One event per new customer, each an upsert of its own row: up to 8
	// waiting ones per transaction.
	return []inbox.Subscription{{Group: "document.customers", Topics: []string{event.TopicCustomer}, Batch: 8,
		Routes: []inbox.Route{inbox.On(on, TypeCustomerCreated, TypeCustomerDeleted)}}}
}

// Contract is the document context's side of the event contracts:
// samples of document.added, made by Publisher.Of like the real events,
// and the struct it reads customers' events into.
func Contract() event.Contract {
	return event.Contract{Samples: samples, Reads: inbox.Reads(Subscriptions(nil, nil)...)}
}
