// Package matchkey turns identifying values into the keys they are
// compared by, so that two spellings a person would read as the same
// value are the same key. A lender's duplicate rule is only as strong as
// its comparison: a loan reference compared byte for byte was dodged
// with a zero-width space, a fullwidth hyphen or lower case.
//
// Keys are for comparing and indexing only; the value a client sent is
// what is stored and shown.
package matchkey

import (
	"strings"
	"unicode"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// fold is full Unicode case folding (ß and ss, K and the Kelvin sign),
// which strings.ToLower is not. A Caser keeps state: one per call.
func fold(s string) string { return cases.Fold().String(s) }

// Reference is the key of a reference such as a loan id: compatibility
// forms unified (NFKC: fullwidth letters and digits, ligatures, the
// no-break space), format characters removed (Unicode Cf: zero-width
// spaces and joiners, the soft hyphen, bidirectional marks), every dash
// and minus a hyphen-minus, runs of white space one space, no space at
// either end, and case folded. "LN-2026/0042", "ln–2026/0042",
// "ＬＮ－２０２６/００４２" and "LN-20\u200b26/0042" are one key.
func Reference(s string) string {
	return settle(s, func(s string) string {
		s = strings.Map(referenceRune, norm.NFKC.String(s))
		return fold(strings.Join(strings.Fields(s), " "))
	})
}

// referenceRune drops format characters and turns dashes into '-'.
func referenceRune(r rune) rune {
	switch {
	case unicode.Is(unicode.Cf, r):
		return -1
	case unicode.Is(unicode.Pd, r) || isMinus(r):
		return '-'
	}
	return r
}

// isMinus: minus signs are math symbols (Sm), not dashes (Pd), but look
// and are typed as one.
func isMinus(r rune) bool {
	return r == '\u2212' || r == '\u02d7' || r == '\u2796' || r == '\uff0d' || r == '\ufe63'
}

// Email is the key of an email address: NFKC, format characters and
// white space removed, case folded, the whole address. Nothing else is
// folded: a "+tag" and dots in the local part name different mailboxes
// at most providers (Gmail's rules are its own), so, as Stripe does, two
// addresses that differ there are two addresses, not a duplicate. The
// duplicate rule refuses a customer, so a false match costs more than a
// missed one.
func Email(s string) string {
	return settle(s, func(s string) string {
		s = strings.Map(func(r rune) rune {
			if unicode.Is(unicode.Cf, r) || unicode.IsSpace(r) {
				return -1
			}
			return r
		}, norm.NFKC.String(s))
		return fold(s)
	})
}

// settle applies step until the result no longer changes (at most a few
// rounds: folding can leave a string NFKC changes again), so that a key
// is its own key.
func settle(s string, step func(string) string) string {
	for range 4 {
		next := step(s)
		if next == s {
			return s
		}
		s = next
	}
	return s
}
