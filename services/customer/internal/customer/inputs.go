package customer

import "github.com/kycfield/kyc/pkg/optional"

// The use cases' inputs. Each member may be absent, null or set
// (optional.Field), which partial updates need. The json names are the
// names validation problems are reported under ("addresses[0].city"), so
// a transport decodes request bodies straight into these types; members
// are declared in the order their problems are reported.

// Fields are the personal details shared by create and update.
type Fields struct {
	FirstName      optional.Field[string] `json:"firstName"`
	LastName       optional.Field[string] `json:"lastName"`
	Phone          optional.Field[string] `json:"phone"`
	Email          optional.Field[string] `json:"email"`
	Occupation     optional.Field[string] `json:"occupation"`
	BVN            optional.Field[string] `json:"bvn"`
	NIN            optional.Field[string] `json:"nin"`
	PassportNumber optional.Field[string] `json:"passportNumber"`
	LoanID         optional.Field[string] `json:"loanId"`
	LoanType       optional.Field[string] `json:"loanType"`
}

// CreateInput is a new customer with its addresses and documents.
type CreateInput struct {
	Fields
	RelogReason optional.Field[string]          `json:"relogReason"`
	Addresses   optional.Field[[]AddressInput]  `json:"addresses"`
	Documents   optional.Field[[]DocumentInput] `json:"documents"`
}

// AddressInput is one submitted address.
type AddressInput struct {
	Label        optional.Field[string] `json:"label"`
	StreetNumber optional.Field[string] `json:"streetNumber"`
	StreetName   optional.Field[string] `json:"streetName"`
	Landmark     optional.Field[string] `json:"landmark"`
	City         optional.Field[string] `json:"city"`
	LGA          optional.Field[string] `json:"lga"`
	State        optional.Field[string] `json:"state"`
	Country      optional.Field[string] `json:"country"`
	Notes        optional.Field[string] `json:"notes"`
}

// DocumentInput is one submitted document reference.
type DocumentInput struct {
	FileName     optional.Field[string] `json:"fileName"`
	FileURL      optional.Field[string] `json:"fileUrl"`
	FileType     optional.Field[string] `json:"fileType"`
	FileSize     optional.Field[int64]  `json:"fileSize"`
	DocumentType optional.Field[string] `json:"documentType"`
}
