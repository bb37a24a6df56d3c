package httpapi

import (
	"github.com/kycfield/kyc/pkg/jsonbody"
	"github.com/kycfield/kyc/services/customer/internal/customer"
)

// maxBody bounds JSON bodies (the gateway enforces the same limit).
const maxBody = 1 << 20

// readOnly are the members of a customer as shown that a client may echo
// back but never set.
var readOnly = []jsonbody.Refused{
	{Field: "id", Message: "is read-only"},
	{Field: "status", Message: "is read-only"},
	{Field: "reportUrl", Message: "is read-only"},
	{Field: "verificationDate", Message: "is read-only"},
	{Field: "submittedAt", Message: "is read-only"},
	{Field: "createdAt", Message: "is read-only"},
	{Field: "updatedAt", Message: "is read-only"},
}

// createOnly are the members of a create that an update refuses, saying
// where they go instead.
var createOnly = []jsonbody.Refused{
	{Field: "addresses", Message: "cannot be changed with PUT; append one with POST /api/v1/customers/{id}/addresses"},
	{Field: "documents", Message: "cannot be changed with PUT; append one with POST /api/v1/customers/{id}/documents"},
	{Field: "relogReason", Message: "can only be sent when creating a customer"},
}

var updateRefused = append(append([]jsonbody.Refused{}, readOnly...), createOnly...)

// updateFrom reads a PUT body: personal fields only, at least one member.
func updateFrom(o *jsonbody.Object) (customer.Fields, error) {
	var in customer.Fields
	o.Into(&in, updateRefused...)
	if o.Len() == 0 {
		o.Fail("body", "must contain at least one field to update")
	}
	return in, o.Err()
}
