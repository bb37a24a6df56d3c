package api

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// OverallStatusTable is events/overall-status.json: a customer's
// overallStatus for every multiset of its address statuses (0 to 5
// addresses). The customer and verification contexts each compute it by
// their own rule; both are held to this table, so they agree.
type OverallStatusTable struct {
	AddressStatuses []string `json:"addressStatuses"`
	OverallStatuses []string `json:"overallStatuses"`
	Rows            []struct {
		Addresses     []string `json:"addresses"`
		OverallStatus string   `json:"overallStatus"`
	} `json:"rows"`
}

// LoadOverallStatusTable reads and checks the table: every multiset of at
// most 5 of the 7 address statuses, each once (792 rows).
func LoadOverallStatusTable() (OverallStatusTable, error) {
	var tab OverallStatusTable
	b, err := EventSchemas.ReadFile("events/overall-status.json")
	if err == nil {
		err = json.Unmarshal(b, &tab)
	}
	if err != nil {
		return tab, fmt.Errorf("overall-status.json: %w", err)
	}
	seen := map[string]bool{}
	for _, r := range tab.Rows {
		key := strings.Join(sortedBy(r.Addresses, tab.AddressStatuses), ",")
		if seen[key] || len(r.Addresses) > 5 {
			return tab, fmt.Errorf("overall-status.json: row %v is repeated or too long", r.Addresses)
		}
		seen[key] = true
	}
	if len(seen) != 792 { // C(7+5, 5) multisets of 0-5 statuses
		return tab, fmt.Errorf("overall-status.json: %d rows; want 792", len(seen))
	}
	return tab, nil
}

// Check applies rule to every row in every order of its addresses, given
// the context's own status names, and describes each disagreement.
func (tab OverallStatusTable) Check(addressStatuses, overallStatuses []string, rule func([]string) string) []string {
	if !slices.Equal(tab.AddressStatuses, addressStatuses) || !slices.Equal(tab.OverallStatuses, overallStatuses) {
		return []string{fmt.Sprintf("the table is about %v -> %v; the context has %v -> %v",
			tab.AddressStatuses, tab.OverallStatuses, addressStatuses, overallStatuses)}
	}
	var bad []string
	for _, r := range tab.Rows {
		permutations(r.Addresses, func(order []string) {
			if got := rule(order); got != r.OverallStatus {
				bad = append(bad, fmt.Sprintf("%v -> %s; the table says %s", order, got, r.OverallStatus))
			}
		})
	}
	return bad
}

func sortedBy(statuses, order []string) []string {
	out := slices.Clone(statuses)
	slices.SortFunc(out, func(a, b string) int { return slices.Index(order, a) - slices.Index(order, b) })
	return out
}

// permutations calls f with every distinct order of s.
func permutations(s []string, f func([]string)) {
	s = slices.Clone(s)
	slices.Sort(s)
	for {
		f(s)
		// Next lexicographic permutation; done after the last one.
		i := len(s) - 2
		for i >= 0 && s[i] >= s[i+1] {
			i--
		}
		if i < 0 {
			return
		}
		j := len(s) - 1
		for s[j] <= s[i] {
			j--
		}
		s[i], s[j] = s[j], s[i]
		slices.Reverse(s[i+1:])
	}
}
