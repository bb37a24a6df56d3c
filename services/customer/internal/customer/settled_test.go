package customer

import "testing"

func TestSettled(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status    string
		addresses []string
		want      bool
	}{
		{StatusPending, []string{AddressPending}, false},
		{StatusInProgress, []string{AddressVerified, AddressInReview}, false},
		{StatusInProgress, []string{AddressAssigned}, false},
		{StatusVerified, []string{AddressVerified}, true},
		{StatusRejected, []string{AddressVerified, AddressRejected}, true},
		{StatusVerified, []string{AddressVerified, AddressCancelled}, true},
		// An address appended to a finished customer: the customer still
		// says VERIFIED until verification takes the address up.
		{StatusVerified, []string{AddressVerified, AddressPending}, false},
	} {
		c := Customer{Status: tc.status}
		for _, s := range tc.addresses {
			c.Addresses = append(c.Addresses, Address{Status: s})
		}
		if got := c.Settled(); got != tc.want {
			t.Errorf("%s with addresses %v: settled %v, want %v", tc.status, tc.addresses, got, tc.want)
		}
	}
}
