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
	// TypeDocumentAdded is the document context's.
	TypeDocumentAdded = "document.added"
	// Organization event types are auth-billing's.
	TypeOrgCreated         = "organization.created"
	TypeOrgPlanChanged     = "organization.plan_changed"
	TypeOrgSettingsChanged = "organization.settings_changed"
)

// organization is the part of auth-billing's organization events this
// context reads: the name and the operations settings (absent from
// events published before they existed: no review, 72 hours).
type organization struct {
	ID           string `json:"id"`
	Name         string `json:"name,omitempty"`
	Version      int64  `json:"version"`
	ReviewPolicy string `json:"reviewPolicy,omitempty"`
	SLAHours     int    `json:"slaHours,omitempty"`
}

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

// documentAdded is the part of document.added this context reads: the
// document in the shape the customer read shows documents, so that the
// status events (and the webhooks made of them) list it like the ones
// sent at creation.
type documentAdded struct {
	CustomerID string `json:"customerId"`
	Document   struct {
		ID           string  `json:"id"`
		FileName     *string `json:"fileName"`
		FileURL      *string `json:"fileUrl"`
		FileType     *string `json:"fileType"`
		FileSize     *int64  `json:"fileSize"`
		DocumentType string  `json:"documentType"`
		UploadedAt   *string `json:"uploadedAt"`
		Verified     bool    `json:"verified"`
	} `json:"document"`
}

// Subscriptions keep cases and jobs in step with the customer context (a
// new customer's addresses start verifying, an added address too, changes
// to names, phone, loan and documents are kept, a deleted customer's open
// jobs are cancelled) and add the documents appended through the document
// context. Each is a use case on the inbox transaction.
func Subscriptions(svc *verification.Service, within func(pgx.Tx) verification.Tx) []inbox.Subscription {
	onCustomer := func(ctx context.Context, tx pgx.Tx, e event.Event, d customerChange) error {
		if d.CustomerID == "" {
			return inbox.Permanent(fmt.Errorf("%s without customerId", e.Type))
		}
		in := caseInput(e, d)
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
	onDocument := func(ctx context.Context, tx pgx.Tx, e event.Event, d documentAdded) error {
		if d.CustomerID == "" || d.Document.ID == "" {
			return inbox.Permanent(fmt.Errorf("%s without customerId or document id", e.Type))
		}
		doc, err := json.Marshal(d.Document)
		if err != nil {
			return inbox.Permanent(err)
		}
		return svc.DocumentAdded(ctx, within(tx), e.OrgID, e.Environment, d.CustomerID, d.Document.ID, doc)
	}
	onOrg := func(ctx context.Context, tx pgx.Tx, e event.Event, o organization) error {
		if o.ID == "" || o.Version < 1 {
			return inbox.Permanent(fmt.Errorf("%s without id or version", e.Type))
		}
		return svc.SaveOrgSettings(ctx, within(tx), verification.OrgSettings{OrgID: o.ID, Name: o.Name, ReviewPolicy: o.ReviewPolicy,
			SLA: time.Duration(o.SLAHours) * time.Hour, Version: o.Version})
	}
	return []inbox.Subscription{
		{Group: "verification.orgs", Topics: []string{event.TopicAuth}, Routes: []inbox.Route{
			inbox.On(onOrg, TypeOrgCreated, TypeOrgPlanChanged, TypeOrgSettingsChanged)}},
		// One customer.created per new customer, and with no sandbox delay
		// its whole simulated visit in the same transaction: up to 8 waiting
		// events per transaction. Every write is to rows of the customer's
		// own or to the organization's counters, taken in one order.
		{Group: "verification.customers", Topics: []string{event.TopicCustomer}, Batch: 8, Routes: []inbox.Route{
			inbox.On(onCustomer, TypeCustomerCreated, TypeCustomerUpdated, TypeCustomerDeleted, TypeAddressAdded)}},
		{Group: "verification.documents", Topics: []string{event.TopicDocument}, Routes: []inbox.Route{
			inbox.On(onDocument, TypeDocumentAdded)}},
	}
}

func caseInput(e event.Event, d customerChange) verification.CaseInput {
	in := verification.CaseInput{CustomerID: d.CustomerID, OrgID: e.OrgID, Env: e.Environment,
		FirstName: d.Customer.FirstName, LastName: d.Customer.LastName, Phone: d.Customer.Phone,
		LoanID: deref(d.Customer.LoanID), LoanType: deref(d.Customer.LoanType), Documents: d.Customer.Documents}
	if d.Customer.CreatedAt != nil {
		in.At = *d.Customer.CreatedAt
	}
	for _, a := range d.Customer.Addresses {
		in.Addresses = append(in.Addresses, verification.AddressInput{ID: a.ID, Address: a.Address})
	}
	return in
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
