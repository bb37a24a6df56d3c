package view

import "github.com/kycfield/kyc/services/customer/internal/customer"

// Receipt is what a write answers to a caller that may not read
// customers (an API key with kyc:write but not kyc:read): that the write
// took, and nothing the key could not GET. Without it, a PUT that
// changes nothing was a way to read the whole record.
type Receipt struct {
	ID        string  `json:"id"`
	Status    string  `json:"status"`
	UpdatedAt *string `json:"updatedAt"`
	// AddressID is the appended address, on POST …/addresses only: the
	// id its verification events and webhooks will name.
	AddressID string `json:"addressId,omitempty"`
}

// ReceiptOf is c's receipt.
func ReceiptOf(c customer.Customer) Receipt {
	return Receipt{ID: c.ID, Status: c.Status, UpdatedAt: ts(&c.UpdatedAt)}
}
