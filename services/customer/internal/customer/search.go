package customer

import (
	"strings"
	"sync"
	"unicode"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// folders hands out accent-stripping transformers: a transform.Chain keeps
// buffers between calls and must not be shared by concurrent requests.
var folders = sync.Pool{New: func() any {
	return transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
}}

// Fold lower-cases s and strips accents, so that "adebisi" finds
// "Adébísí" and search is case-insensitive in every script.
func Fold(s string) string {
	t := folders.Get().(transform.Transformer)
	out, _, err := transform.String(t, s)
	folders.Put(t)
	if err != nil {
		out = s
	}
	return strings.ToLower(out)
}

// SearchText is what the list's search matches against: full name, email
// and phone, folded.
func SearchText(c Customer) string {
	return Fold(c.FirstName + " " + c.LastName + " " + c.Email + " " + c.Phone)
}

// Search is a parsed search term.
type Search struct {
	// PhonePrefix is set when the term is the start of a phone number,
	// normalised to +234...: it is answered from the phone index.
	PhonePrefix string
	// Text is the folded term matched anywhere in SearchText.
	Text string
}

// ParseSearch interprets a search term. Terms that look like the start of
// a Nigerian number in any usual form (0803..., 234803..., +234 803...)
// become a phone prefix; anything else is a substring search.
func ParseSearch(term string) Search {
	t := strings.TrimSpace(term)
	compact := strings.NewReplacer(" ", "", "-", "").Replace(t)
	if len(compact) >= 4 && strings.Trim(compact, "+0123456789") == "" && strings.LastIndexByte(compact, '+') <= 0 {
		digits := strings.TrimPrefix(compact, "+")
		switch {
		case strings.HasPrefix(digits, "234"):
			return Search{PhonePrefix: "+" + digits}
		case strings.HasPrefix(digits, "0") && len(digits) >= 2:
			return Search{PhonePrefix: "+234" + digits[1:]}
		}
	}
	return Search{Text: Fold(strings.Join(strings.Fields(t), " "))}
}
