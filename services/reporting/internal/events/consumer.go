// Package events holds the reporting context's consumers (customer-events
// for the profile read model, verification-events for the outcomes that
// trigger a report) and the report.generated event it publishes.
package events

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/services/reporting/internal/report"
)

// Event types this context reads.
const (
	TypeCustomerCreated       = "customer.created"
	TypeCustomerUpdated       = "customer.updated"
	TypeCustomerDeleted       = "customer.deleted"
	TypeAddressAdded          = "address.added"
	TypeVerificationCompleted = "verification.completed"
	TypeVerificationRejected  = "verification.rejected"
)

// customerChange is the part of the customer context's events this
// context reads: the customer as the API shows it (BVN/NIN masked).
type customerChange struct {
	CustomerID string  `json:"customerId"`
	Customer   profile `json:"customer"`
}

type profile struct {
	FirstName      string  `json:"firstName"`
	LastName       string  `json:"lastName"`
	Phone          string  `json:"phone"`
	Email          *string `json:"email"`
	Occupation     *string `json:"occupation"`
	BVN            *string `json:"bvn"`
	NIN            *string `json:"nin"`
	PassportNumber *string `json:"passportNumber"`
	LoanID         *string `json:"loanId"`
	LoanType       *string `json:"loanType"`
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// Customers keeps the profile read model in step with customer-events.
func Customers(svc *report.Service, within func(pgx.Tx) report.Tx) inbox.Handler {
	return func(ctx context.Context, tx pgx.Tx, e event.Event) error {
		switch e.Type {
		case TypeCustomerCreated, TypeCustomerUpdated, TypeCustomerDeleted, TypeAddressAdded:
		default:
			return nil
		}
		var d customerChange
		if err := json.Unmarshal(e.Data, &d); err != nil || d.CustomerID == "" || e.OrgID == "" || e.Environment == "" {
			return inbox.Permanent(fmt.Errorf("decode %s: customerId, orgId or environment missing (%v)", e.Type, err))
		}
		p := d.Customer
		return svc.CustomerChanged(ctx, within(tx), report.Customer{ID: d.CustomerID, OrgID: e.OrgID, Env: e.Environment,
			FirstName: p.FirstName, LastName: p.LastName, Phone: p.Phone, Email: str(p.Email), Occupation: str(p.Occupation),
			BVN: str(p.BVN), NIN: str(p.NIN), PassportNumber: str(p.PassportNumber), LoanID: str(p.LoanID),
			LoanType: str(p.LoanType), Deleted: e.Type == TypeCustomerDeleted})
	}
}

// Outcomes renders a report version for every verification.completed and
// verification.rejected. Rendering happens inside the inbox transaction:
// the event counts as processed only once the PDF and its row exist.
func Outcomes(svc *report.Service, within func(pgx.Tx) report.Tx) inbox.Handler {
	return func(ctx context.Context, tx pgx.Tx, e event.Event) error {
		if e.Type != TypeVerificationCompleted && e.Type != TypeVerificationRejected {
			return nil
		}
		var o report.Outcome
		if err := json.Unmarshal(e.Data, &o); err != nil || o.CustomerID == "" || e.OrgID == "" || e.Environment == "" {
			return inbox.Permanent(fmt.Errorf("decode %s: customerId, orgId or environment missing (%v)", e.Type, err))
		}
		return svc.OutcomeReached(ctx, within(tx), e.ID, e.OrgID, e.Environment, o)
	}
}
