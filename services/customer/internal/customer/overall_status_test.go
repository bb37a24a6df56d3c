package customer

import (
	"testing"

	"github.com/kycfield/kyc/api"
)

// TestOverallStatusFollowsTheSharedTable holds OverallStatus to every row
// of the truth table the verification context is held to as well, in
// every order of the addresses.
func TestOverallStatusFollowsTheSharedTable(t *testing.T) {
	tab, err := api.LoadOverallStatusTable()
	if err != nil {
		t.Fatal(err)
	}
	statuses := []string{AddressPending, AddressAssigned, AddressInProgress, AddressVerified, AddressRejected, AddressCancelled}
	rule := func(order []string) string {
		addrs := make([]Address, len(order))
		for i, s := range order {
			addrs[i].Status = s
		}
		return OverallStatus(addrs)
	}
	for _, bad := range tab.Check(statuses, CustomerStatuses, rule) {
		t.Error(bad)
	}
}
