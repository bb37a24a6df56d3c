package customer

import "slices"

// finalAddress are the address statuses nothing follows.
var finalAddress = []string{AddressVerified, AddressRejected, AddressCancelled}

// Settled reports whether c's verification is over: its status is final
// and so is every address's (an address appended to a finished customer is
// verified while the customer still shows VERIFIED). A status read of a
// customer not settled tells pollers when to ask again.
func (c Customer) Settled() bool {
	if c.Status != StatusVerified && c.Status != StatusRejected {
		return false
	}
	for _, a := range c.Addresses {
		if !slices.Contains(finalAddress, a.Status) {
			return false
		}
	}
	return true
}
