// Package customer is the customer context's domain: a lender's customer,
// the addresses to verify and the documents supplied, the rules for
// creating and changing them, duplicates, and the verification status read
// model kept up to date from the verification context's events.
package customer

import (
	"time"

	"github.com/kycfield/kyc/pkg/apperr"
)

// Customer statuses. The verification context works the customer's
// status out from its addresses (its one owner); this context keeps what
// it reports.
const (
	StatusPending    = "PENDING"
	StatusInProgress = "IN_PROGRESS"
	StatusVerified   = "VERIFIED"
	StatusRejected   = "REJECTED"
)

// Address statuses, moved by the verification context.
const (
	AddressPending    = "PENDING"
	AddressAssigned   = "ASSIGNED"
	AddressInProgress = "IN_PROGRESS"
	// AddressInReview: operations hold the agent's result before it is
	// released; not final, so the customer stays IN_PROGRESS.
	AddressInReview  = "IN_REVIEW"
	AddressVerified  = "VERIFIED"
	AddressRejected  = "REJECTED"
	AddressCancelled = "CANCELLED"
)

// CustomerStatuses are the values the list filter accepts.
var CustomerStatuses = []string{StatusPending, StatusInProgress, StatusVerified, StatusRejected}

// LoanTypes are the accepted loanType values.
var LoanTypes = []string{"PERSONAL", "BUSINESS", "DOCUMENT_VERIFICATION", "NEW_CUSTOMER"}

// DocumentTypes are the accepted documentType values.
var DocumentTypes = []string{"ID_CARD", "UTILITY_BILL", "PROOF_OF_ADDRESS", "PASSPORT_PHOTO", "BANK_STATEMENT", "CAC_CERTIFICATE", "OTHER"}

// MaxAddresses is the most addresses a customer may hold.
const MaxAddresses = 5

// Customer is the aggregate. BVN and NIN are held in clear only in memory;
// the repository encrypts them at rest and views mask them.
type Customer struct {
	ID, OrgID, Env   string
	FirstName        string
	LastName         string
	Phone            string
	Email            string
	Occupation       string
	BVN, NIN         string
	PassportNumber   string
	LoanID, LoanType string
	RelogReason      string
	Status           string
	ReportURL        string
	VerificationDate *time.Time
	SubmittedAt      time.Time
	CreatedAt        time.Time
	UpdatedAt        time.Time
	DeletedAt        *time.Time
	Addresses        []Address
	Documents        []Document
}

// Address is a place to verify.
type Address struct {
	ID                                                   string
	Label, StreetNumber, StreetName, Landmark, City, LGA string
	State, Country, Notes                                string
	Status                                               string
	// VerificationData is the verification context's result, as JSON.
	VerificationData []byte
	// Sequence orders status updates; older ones are ignored.
	Sequence  int64
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Document is a supporting document reference.
type Document struct {
	ID           string
	FileName     string
	FileURL      string
	FileType     string
	FileSize     int64
	DocumentType string
	Verified     bool
	UploadedAt   time.Time
}

// Duplicate is an existing customer sharing an identifying value.
type Duplicate struct {
	Field      string // phone, email or loanId
	CustomerID string
}

// Error codes of this context.
const (
	CodeDuplicate            = "DUPLICATE_CUSTOMER"
	CodeAddressLimit         = "ADDRESS_LIMIT_EXCEEDED"
	CodePlanLimitExceeded    = "PLAN_LIMIT_EXCEEDED"
	duplicateMessageTemplate = "A customer with the same %s already exists in this environment; update it with PUT or send relogReason to create a new record"
)

// ErrNotFound is answered for unknown, deleted, malformed and other
// organizations' ids alike.
var ErrNotFound = apperr.NotFound("Customer")
