package verification

import (
	"testing"

	"github.com/kycfield/kyc/api"
)

// TestOverallStatusFollowsTheSharedTable holds OverallStatus to every row
// of the truth table the customer context is held to as well, in every
// order of the addresses.
func TestOverallStatusFollowsTheSharedTable(t *testing.T) {
	tab, err := api.LoadOverallStatusTable()
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range tab.Check(allStatuses, []string{Pending, InProgress, Verified, Rejected}, OverallStatus) {
		t.Error(bad)
	}
}
