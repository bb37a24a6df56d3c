// Package view renders a customer as this context shows it to the
// outside: every field present (null when unset), BVN and NIN masked. The
// HTTP API answers with it and the customer events carry it, so the two
// cannot drift apart; the domain knows nothing of it.
package view

import (
	"encoding/json"
	"time"

	"github.com/kycfield/kyc/pkg/envelope"
	"github.com/kycfield/kyc/pkg/gazetteer"
	"github.com/kycfield/kyc/services/customer/internal/customer"
)

// Customer is a customer as shown.
type Customer struct {
	ID               string     `json:"id"`
	FirstName        string     `json:"firstName"`
	LastName         string     `json:"lastName"`
	Phone            string     `json:"phone"`
	Email            *string    `json:"email"`
	Occupation       *string    `json:"occupation"`
	BVN              *string    `json:"bvn"`
	NIN              *string    `json:"nin"`
	PassportNumber   *string    `json:"passportNumber"`
	LoanID           *string    `json:"loanId"`
	LoanType         *string    `json:"loanType"`
	Addresses        []Address  `json:"addresses"`
	Documents        []Document `json:"documents"`
	RelogReason      *string    `json:"relogReason"`
	Status           string     `json:"status"`
	ReportURL        *string    `json:"reportUrl"`
	VerificationDate *string    `json:"verificationDate"`
	SubmittedAt      *string    `json:"submittedAt"`
	CreatedAt        *string    `json:"createdAt"`
	UpdatedAt        *string    `json:"updatedAt"`
}

// Address is an address with its verification status and, once
// verified, the verification data.
type Address struct {
	ID           string  `json:"id"`
	Label        *string `json:"label"`
	StreetNumber *string `json:"streetNumber"`
	StreetName   string  `json:"streetName"`
	Landmark     *string `json:"landmark"`
	City         string  `json:"city"`
	LGA          *string `json:"lga"`
	State        string  `json:"state"`
	Country      string  `json:"country"`
	Notes        *string `json:"notes"`
	// ExpectedLocation is null only for an address stored before intake
	// checks with a state the gazetteer does not know.
	ExpectedLocation *gazetteer.Location `json:"expectedLocation"`
	Status           string              `json:"status"`
	VerificationData json.RawMessage     `json:"verificationData"`
	// DueBy is what operations promise for a live address: its creation
	// plus the organization's SLA target then; null in the sandbox.
	DueBy *string `json:"dueBy"`
}

// Document is a supporting document.
type Document struct {
	ID           string  `json:"id"`
	FileName     *string `json:"fileName"`
	FileURL      *string `json:"fileUrl"`
	FileType     *string `json:"fileType"`
	FileSize     *int64  `json:"fileSize"`
	DocumentType string  `json:"documentType"`
	UploadedAt   *string `json:"uploadedAt"`
	Verified     bool    `json:"verified"`
}

// Of renders c.
func Of(c customer.Customer) Customer {
	v := Customer{
		ID: c.ID, FirstName: c.FirstName, LastName: c.LastName, Phone: c.Phone,
		Email: opt(c.Email), Occupation: opt(c.Occupation), PassportNumber: opt(c.PassportNumber),
		LoanID: opt(c.LoanID), LoanType: opt(c.LoanType), RelogReason: opt(c.RelogReason),
		Status: c.Status, ReportURL: opt(c.ReportURL), VerificationDate: ts(c.VerificationDate),
		SubmittedAt: envelope.Timestamp(c.SubmittedAt), CreatedAt: envelope.Timestamp(c.CreatedAt), UpdatedAt: envelope.Timestamp(c.UpdatedAt),
		Addresses: make([]Address, 0, len(c.Addresses)), Documents: make([]Document, 0, len(c.Documents)),
	}
	if c.BVN != "" {
		m := customer.Mask(c.BVN)
		v.BVN = &m
	}
	if c.NIN != "" {
		m := customer.Mask(c.NIN)
		v.NIN = &m
	}
	for _, a := range c.Addresses {
		v.Addresses = append(v.Addresses, OfAddress(a))
	}
	for _, d := range c.Documents {
		dv := Document{ID: d.ID, FileName: opt(d.FileName), FileURL: opt(d.FileURL), FileType: opt(d.FileType),
			DocumentType: d.DocumentType, UploadedAt: envelope.Timestamp(d.UploadedAt), Verified: d.Verified}
		if d.FileSize > 0 {
			dv.FileSize = &d.FileSize
		}
		v.Documents = append(v.Documents, dv)
	}
	return v
}

// OfAddress renders one address.
func OfAddress(a customer.Address) Address {
	av := Address{ID: a.ID, Label: opt(a.Label), StreetNumber: opt(a.StreetNumber), StreetName: a.StreetName,
		Landmark: opt(a.Landmark), City: a.City, LGA: opt(a.LGA), State: a.State, Country: a.Country, Notes: opt(a.Notes),
		Status: a.Status, VerificationData: json.RawMessage("null"), DueBy: ts(a.DueBy)}
	if len(a.VerificationData) > 0 {
		av.VerificationData = a.VerificationData
	}
	if loc, ok := a.ExpectedLocation(); ok {
		av.ExpectedLocation = &loc
	}
	return av
}

func opt(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func ts(t *time.Time) *string {
	if t == nil {
		return nil
	}
	return envelope.Timestamp(*t)
}

// Status is the data of GET /api/v1/verification/{customerId}/status:
// the customer's verification progress without its profile. The customer
// context serves it, from the same record as the customer read, so a
// lender's write (a delete, an added address, a new name) shows in the
// very next status read; the overall status and each address's
// verificationData are the verification context's, as it announced them.
type Status struct {
	CustomerID       string     `json:"customerId"`
	CustomerName     string     `json:"customerName"`
	OverallStatus    string     `json:"overallStatus"`
	LoanID           *string    `json:"loanId"`
	LoanType         *string    `json:"loanType"`
	VerificationDate *string    `json:"verificationDate"`
	Addresses        []Address  `json:"addresses"`
	Documents        []Document `json:"documents"`
	ReportURL        *string    `json:"reportUrl"`
}

// StatusOf renders c's verification status.
func StatusOf(c customer.Customer) Status {
	v := Of(c)
	return Status{CustomerID: v.ID, CustomerName: c.FirstName + " " + c.LastName, OverallStatus: v.Status,
		LoanID: v.LoanID, LoanType: v.LoanType, VerificationDate: v.VerificationDate, Addresses: v.Addresses,
		Documents: v.Documents, ReportURL: v.ReportURL}
}
