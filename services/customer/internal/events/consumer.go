package events

import (
	"context"
	"encoding/json"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/services/customer/internal/customer"
)

// Event types of other contexts that this context reads.
const (
	// TypeAddressUpdated is published by the verification context on
	// every address transition.
	TypeAddressUpdated = "verification.address.updated"
	// TypeDocumentAdded is published by the document context when a
	// document is appended to a customer.
	TypeDocumentAdded = "document.added"
	// TypeReportGenerated is published by the reporting context when it
	// has stored a report version.
	TypeReportGenerated = "report.generated"
)

// AddressUpdated is the data of verification.address.updated that this
// context reads. Sequence increases with every transition of the address;
// OverallStatus and VerificationDate are the customer's, as the
// verification context worked them out after this transition.
type AddressUpdated struct {
	CustomerID       string          `json:"customerId"`
	AddressID        string          `json:"addressId"`
	Status           string          `json:"status"`
	VerificationData json.RawMessage `json:"verificationData,omitempty"`
	Sequence         int64           `json:"sequence"`
	OccurredAt       time.Time       `json:"occurredAt"`
	OverallStatus    string          `json:"overallStatus"`
	VerificationDate *time.Time      `json:"verificationDate"`
	// DueBy is the live address's promised time (absent in the sandbox).
	DueBy *time.Time `json:"dueBy,omitempty"`
}

// DocumentAdded is the data of document.added that this context reads.
type DocumentAdded struct {
	CustomerID string `json:"customerId"`
	Document   struct {
		ID           string    `json:"id"`
		DocumentType string    `json:"documentType"`
		FileName     string    `json:"fileName"`
		FileURL      string    `json:"fileUrl"`
		FileType     string    `json:"fileType"`
		FileSize     int64     `json:"fileSize"`
		Verified     bool      `json:"verified"`
		UploadedAt   time.Time `json:"uploadedAt"`
	} `json:"document"`
}

// ReportGenerated is the data of report.generated that this context reads.
type ReportGenerated struct {
	CustomerID string `json:"customerId"`
	ReportURL  string `json:"reportUrl"`
}

// Subscriptions are this context's consumers: the verification status,
// the documents appended through the document context and the report's
// address, each kept on the customer it belongs to so that every
// lender-facing read of a customer is served from one place.
//
// The verification status feeds the status read, so it must keep up with
// the sandbox pipeline: up to 4 events per transaction. Measured side by
// side (BENCHMARKS §3a): with 1 it fell behind at 80 new customers a
// second, and with 16 it held the status counters' row locks long enough
// to slow the POSTs that bump the same counters (POST p99 0.6 s).
func Subscriptions(svc *customer.Service, within func(pgx.Tx) customer.Tx) []inbox.Subscription {
	return []inbox.Subscription{
		{Group: "customer.verification-status", Topics: []string{event.TopicVerification}, Batch: 4, Routes: []inbox.Route{
			inbox.On(func(ctx context.Context, tx pgx.Tx, e event.Event, d AddressUpdated) error {
				if string(d.VerificationData) == "null" {
					d.VerificationData = nil
				}
				_, err := svc.ApplyAddressUpdate(ctx, within(tx), customer.AddressUpdate{OrgID: e.OrgID, Env: e.Environment,
					CustomerID: d.CustomerID, AddressID: d.AddressID, Status: d.Status, VerificationData: d.VerificationData,
					Sequence: d.Sequence, OccurredAt: d.OccurredAt, OverallStatus: d.OverallStatus, VerificationDate: d.VerificationDate,
					DueBy: d.DueBy})
				return err
			}, TypeAddressUpdated),
		}},
		{Group: "customer.documents", Topics: []string{event.TopicDocument}, Routes: []inbox.Route{
			inbox.On(func(ctx context.Context, tx pgx.Tx, e event.Event, d DocumentAdded) error {
				doc := d.Document
				_, err := svc.ApplyDocumentAdded(ctx, within(tx), e.OrgID, e.Environment, d.CustomerID, customer.Document{
					ID: doc.ID, DocumentType: doc.DocumentType, FileName: doc.FileName, FileURL: doc.FileURL, FileType: doc.FileType,
					FileSize: doc.FileSize, Verified: doc.Verified, UploadedAt: doc.UploadedAt.UTC()})
				return err
			}, TypeDocumentAdded),
		}},
		// One report.generated per customer: up to 4 waiting ones per
		// transaction, as for the status above.
		{Group: "customer.reports", Topics: []string{event.TopicReporting}, Batch: 4, Routes: []inbox.Route{
			inbox.On(func(ctx context.Context, tx pgx.Tx, e event.Event, d ReportGenerated) error {
				return svc.ApplyReportGenerated(ctx, within(tx), e.OrgID, e.Environment, d.CustomerID, d.ReportURL)
			}, TypeReportGenerated),
		}},
	}
}
