// Package passwords says whether a chosen password is too easy to guess:
// only whitespace, too few different characters, or on the list of
// common passwords shipped as data (common.txt, made by gen/main.go from
// a maintained npm package; see its header for source, version and
// licence).
package passwords

import (
	_ "embed"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

//go:generate go run ./gen

//go:embed common.txt
var commonTxt string

var common = sync.OnceValue(func() map[string]struct{} {
	// The header ends at the first empty line; every later line is one
	// password (one may well start with '#').
	_, body, _ := strings.Cut(commonTxt, "\n\n")
	set := make(map[string]struct{}, strings.Count(body, "\n"))
	for w := range strings.Lines(body) {
		set[strings.TrimSuffix(w, "\n")] = struct{}{}
	}
	return set
})

// Size is how many common passwords the list holds.
func Size() int { return len(common()) }

// MinDistinct is the fewest different characters a password may have.
const MinDistinct = 5

// Weakness is why a password is refused; "" means it is not.
type Weakness string

// The weaknesses Check finds, worded for the password field's message.
const (
	OnlySpace  Weakness = "must not be only spaces"
	Repetitive Weakness = "must use at least 5 different characters"
	Common     Weakness = "is too common: it appears in lists of leaked passwords; choose another"
)

// Check returns why p is too easy to guess, or "". Case does not matter,
// and a common password with digits or symbols added at its end
// ("Password2024!") is still common.
func Check(p string) Weakness {
	if strings.TrimFunc(p, unicode.IsSpace) == "" {
		return OnlySpace
	}
	lower := strings.ToLower(p)
	if distinct(lower) < MinDistinct {
		return Repetitive
	}
	set := common()
	if _, ok := set[lower]; ok {
		return Common
	}
	stem := strings.TrimRightFunc(lower, func(r rune) bool {
		return unicode.IsDigit(r) || unicode.IsPunct(r) || unicode.IsSymbol(r) || unicode.IsSpace(r)
	})
	if utf8.RuneCountInString(stem) >= 4 {
		if _, ok := set[stem]; ok {
			return Common
		}
	}
	return ""
}

func distinct(s string) int {
	seen := map[rune]struct{}{}
	for _, r := range s {
		seen[r] = struct{}{}
	}
	return len(seen)
}
