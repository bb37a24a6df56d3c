package events

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/services/verification/internal/verification"
)

// Customer event types this context reads.
const (
	TypeCustomerCreated = "customer.created"
	TypeCustomerUpdated = "customer.updated"
	TypeCustomerDeleted = "customer.deleted"
	TypeAddressAdded    = "address.added"
)

// customerChange is the part of the customer context's events this
// context reads.
type customerChange struct {
	CustomerID string `json:"customerId"`
	Customer   struct {
		FirstName string          `json:"firstName"`
		LastName  string          `json:"lastName"`
		Phone     string          `json:"phone"`
		LoanID    *string         `json:"loanId"`
		LoanType  *string         `json:"loanType"`
		Addresses []address       `json:"addresses"`
		Documents json.RawMessage `json:"documents"`
		CreatedAt *time.Time      `json:"createdAt"`
	} `json:"customer"`
	Address *address `json:"address,omitempty"` // address.added
}

type address struct {
	ID string `json:"id"`
	verification.Address
}

// Customers keeps cases and jobs in step with the customer context: a new
// customer's addresses start verifying, an added address too, changes to
// names, phone, loan and documents are kept, and a deleted customer's
// open jobs are cancelled. Each is a use case on the inbox transaction.
func Customers(svc *verification.Service, within func(pgx.Tx) verification.Tx) inbox.Handler {
	return func(ctx context.Context, tx pgx.Tx, e event.Event) error {
		switch e.Type {
		case TypeCustomerCreated, TypeCustomerUpdated, TypeCustomerDeleted, TypeAddressAdded:
		default:
			return nil
		}
		var d customerChange
		if err := json.Unmarshal(e.Data, &d); err != nil || d.CustomerID == "" {
			return inbox.Permanent(fmt.Errorf("decode %s: customerId missing or %v", e.Type, err))
		}
		in := verification.CaseInput{CustomerID: d.CustomerID, OrgID: e.OrgID, Env: e.Environment,
			FirstName: d.Customer.FirstName, LastName: d.Customer.LastName, Phone: d.Customer.Phone,
			LoanID: deref(d.Customer.LoanID), LoanType: deref(d.Customer.LoanType), Documents: d.Customer.Documents}
		if d.Customer.CreatedAt != nil {
			in.At = *d.Customer.CreatedAt
		}
		for _, a := range d.Customer.Addresses {
			in.Addresses = append(in.Addresses, verification.AddressInput{ID: a.ID, Address: a.Address})
		}
		switch e.Type {
		case TypeCustomerCreated:
			return svc.Open(ctx, within(tx), in)
		case TypeCustomerUpdated:
			return svc.Refresh(ctx, within(tx), in)
		case TypeCustomerDeleted:
			return svc.Close(ctx, within(tx), d.CustomerID)
		}
		if d.Address == nil || d.Address.ID == "" {
			return inbox.Permanent(fmt.Errorf("%s without its address", e.Type))
		}
		return svc.AddAddress(ctx, within(tx), d.CustomerID, verification.AddressInput{ID: d.Address.ID, Address: d.Address.Address})
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
