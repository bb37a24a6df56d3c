// Package events holds the reporting context's consumers (customer-events
// for the profile read model, verification-events for the outcomes that
// trigger a report) and the report.generated event it publishes.
package events

import (
	"context"
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
	TypeDocumentAdded         = "document.added"
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

// documentAdded is the part of document.added this context reads.
type documentAdded struct {
	CustomerID string          `json:"customerId"`
	Document   report.Document `json:"document"`
}

// Subscriptions are this context's consumers. The customers' profiles and
// the outcomes are two groups: an outcome whose customer's profile has
// not arrived yet (the two travel on different topics) must not hold up
// the profiles. Outcomes and late documents only queue a render; the
// render worker (report.Service.RenderNext) does the rest.
func Subscriptions(svc *report.Service, within func(pgx.Tx) report.Tx) []inbox.Subscription {
	onCustomer := func(ctx context.Context, tx pgx.Tx, e event.Event, d customerChange) error {
		if d.CustomerID == "" || e.OrgID == "" || e.Environment == "" {
			return inbox.Permanent(fmt.Errorf("%s: customerId, orgId or environment missing", e.Type))
		}
		p := d.Customer
		return svc.CustomerChanged(ctx, within(tx), report.Customer{ID: d.CustomerID, OrgID: e.OrgID, Env: e.Environment,
			FirstName: p.FirstName, LastName: p.LastName, Phone: p.Phone, Email: str(p.Email), Occupation: str(p.Occupation),
			BVN: str(p.BVN), NIN: str(p.NIN), PassportNumber: str(p.PassportNumber), LoanID: str(p.LoanID),
			LoanType: str(p.LoanType), Deleted: e.Type == TypeCustomerDeleted})
	}
	onOutcome := func(ctx context.Context, tx pgx.Tx, e event.Event, o report.Outcome) error {
		if o.CustomerID == "" || e.OrgID == "" || e.Environment == "" {
			return inbox.Permanent(fmt.Errorf("%s: customerId, orgId or environment missing", e.Type))
		}
		return svc.OutcomeReached(ctx, within(tx), e.ID, e.OrgID, e.Environment, o)
	}
	onDocument := func(ctx context.Context, tx pgx.Tx, e event.Event, d documentAdded) error {
		if d.CustomerID == "" || d.Document.ID == "" || e.OrgID == "" || e.Environment == "" {
			return inbox.Permanent(fmt.Errorf("%s: customerId, document id, orgId or environment missing", e.Type))
		}
		return svc.DocumentAdded(ctx, within(tx), e.ID, e.OrgID, e.Environment, d.CustomerID, d.Document)
	}
	onOrganization := func(ctx context.Context, tx pgx.Tx, e event.Event, d orgChange) error {
		if d.ID == "" || d.Plan.ID == "" {
			return inbox.Permanent(fmt.Errorf("%s: id or plan missing", e.Type))
		}
		return svc.OrganizationChanged(ctx, within(tx), report.Organization{ID: d.ID, Name: d.Name, Plan: d.Plan.ID, Version: d.Version})
	}
	// Customers and outcomes come once per customer each: up to 8 waiting
	// events per transaction. Every handler writes only its own rows (a
	// queued render is announced at commit), so they can share one.
	return []inbox.Subscription{
		{Group: "reporting.customers", Topics: []string{event.TopicCustomer}, Batch: 8, Routes: []inbox.Route{
			inbox.On(onCustomer, TypeCustomerCreated, TypeCustomerUpdated, TypeCustomerDeleted, TypeAddressAdded)}},
		{Group: "reporting.outcomes", Topics: []string{event.TopicVerification}, Batch: 8, Routes: []inbox.Route{
			inbox.On(onOutcome, TypeVerificationCompleted, TypeVerificationRejected)}},
		{Group: "reporting.documents", Topics: []string{event.TopicDocument}, Routes: []inbox.Route{
			inbox.On(onDocument, TypeDocumentAdded)}},
		{Group: "reporting.organizations", Topics: []string{event.TopicAuth}, Routes: []inbox.Route{
			inbox.On(onOrganization, TypeOrganizationCreated, TypeOrganizationPlanChanged)}},
	}
}
