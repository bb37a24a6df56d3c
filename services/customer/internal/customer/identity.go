package customer

import (
	"slices"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/kycfield/kyc/pkg/matchkey"
)

// The identifying values and the keys the duplicate rule compares them
// by. A phone is already in one canonical form (NormalizePhone); a loan
// reference and an email are compared by their matchkey, so that a
// zero-width space, a fullwidth hyphen or a change of case does not make
// a "new" customer. The repository stores these keys beside the values
// (loan_key, email_key) and its unique indexes are on them.

// LoanKey is the key a loanId is compared by ("" for none).
func LoanKey(loanID string) string { return matchkey.Reference(loanID) }

// EmailKey is the key an email is compared by ("" for none).
func EmailKey(email string) string { return matchkey.Email(email) }

// identity lists the comparison keys of c's identifying values, by field
// (phone, email, loanId); with only, just those fields. These are what
// writers lock on and what duplicates are looked up by.
func identity(c Customer, only []string) map[string]string {
	all := map[string]string{"phone": c.Phone, "email": EmailKey(c.Email), "loanId": LoanKey(c.LoanID)}
	out := map[string]string{}
	for k, v := range all {
		if v != "" && (only == nil || slices.Contains(only, k)) {
			out[k] = v
		}
	}
	return out
}

// visibleEmail is an email as typed, without what cannot be seen: NFKC
// (a fullwidth "＠" is "@") and format characters (a zero-width space
// pasted from a chat) removed, so that the address stored is the one
// mail is delivered to.
func visibleEmail(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Cf, r) {
			return -1
		}
		return r
	}, norm.NFKC.String(s))
}
