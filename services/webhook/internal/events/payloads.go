// Package events holds what the webhook context reads from
// verification-events (into its own structs), the data of the webhooks
// it delivers for them, and the endpoint.disabled event it publishes.
package events

import (
	"encoding/json"
	"net/url"
	"time"
)

// Verification event types this context reads; each becomes a webhook
// of the same type.
const (
	TypeAddressUpdated = "verification.address.updated"
	TypeCompleted      = "verification.completed"
	TypeRejected       = "verification.rejected"
	// TypeReportGenerated (reporting-events) becomes report.ready.
	TypeReportGenerated = "report.generated"
)

// addressUpdated is the part of verification.address.updated read here.
// verificationData is passed on as the producer rendered it (its schema
// holds no identity numbers).
type addressUpdated struct {
	CustomerID       string          `json:"customerId"`
	AddressID        string          `json:"addressId"`
	Status           string          `json:"status"`
	Sequence         int64           `json:"sequence"`
	OccurredAt       time.Time       `json:"occurredAt"`
	VerificationData json.RawMessage `json:"verificationData"`
	// Read for the stage events; absent from events published before the
	// producer added them.
	PreviousStatus *string    `json:"previousStatus,omitempty"`
	AgentID        *string    `json:"agentId,omitempty"`
	NextVisitAt    *time.Time `json:"nextVisitAt,omitempty"`
}

// reportGenerated is the part of reporting-events' report.generated read
// here.
type reportGenerated struct {
	CustomerID  string    `json:"customerId"`
	ReportID    string    `json:"reportId"`
	Version     int       `json:"version"`
	Status      string    `json:"status"`
	GeneratedAt time.Time `json:"generatedAt"`
}

// customerStatus is the part of verification.completed/rejected read
// here: every field is named, so nothing the producer adds later (an
// identity number, say) reaches a webhook without a change here.
type customerStatus struct {
	CustomerID       string          `json:"customerId"`
	CustomerName     string          `json:"customerName"`
	OverallStatus    string          `json:"overallStatus"`
	LoanID           *string         `json:"loanId"`
	LoanType         *string         `json:"loanType"`
	VerificationDate *string         `json:"verificationDate"`
	Addresses        []statusAddress `json:"addresses"`
}

type statusAddress struct {
	ID               string          `json:"id"`
	Label            *string         `json:"label"`
	StreetNumber     *string         `json:"streetNumber"`
	StreetName       string          `json:"streetName"`
	Landmark         *string         `json:"landmark"`
	City             string          `json:"city"`
	LGA              *string         `json:"lga"`
	State            string          `json:"state"`
	Country          string          `json:"country"`
	Notes            *string         `json:"notes"`
	Status           string          `json:"status"`
	VerificationData json.RawMessage `json:"verificationData"`
}

// AddressData is the data of the verification.address.updated webhook.
// A receiver keeps, per address, the highest sequence it applied and
// ignores an update with a lower one: delivery order is not promised.
type AddressData struct {
	CustomerID       string          `json:"customerId"`
	AddressID        string          `json:"addressId"`
	Status           string          `json:"status"`
	Sequence         int64           `json:"sequence"`
	OccurredAt       string          `json:"occurredAt"`
	VerificationData json.RawMessage `json:"verificationData"`
	// ReportURL is null: a report exists only once the customer's
	// verification has ended.
	ReportURL *string `json:"reportUrl"`
}

// StatusData is the data of the verification.completed and
// verification.rejected webhooks.
type StatusData struct {
	CustomerID       string          `json:"customerId"`
	CustomerName     string          `json:"customerName"`
	LoanID           *string         `json:"loanId"`
	LoanType         *string         `json:"loanType"`
	OverallStatus    string          `json:"overallStatus"`
	VerificationDate *string         `json:"verificationDate"`
	ReportURL        *string         `json:"reportUrl"`
	Addresses        []StatusAddress `json:"addresses"`
}

// StatusAddress is an address with its verification outcome and the
// sequence and time of its last transition.
type StatusAddress struct {
	statusAddress
	Sequence   int64  `json:"sequence"`
	OccurredAt string `json:"occurredAt"`
}

// ReportURL is the stable gateway URL of a customer's PDF report (409
// REPORT_NOT_READY for the moment the report takes to render).
func ReportURL(base, customerID string) *string {
	u := base + "/api/v1/customers/" + url.PathEscape(customerID) + "/report"
	return &u
}

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }
