// Package key turns a place name into the form names are compared in, so
// that "Eti-Osa", "ETI OSA" and "Ẹti Ọsa" are one name. The generator and
// the gazetteer share it: the embedded file is built with the same folding
// the lookups use.
package key

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Of folds s to lower-case ASCII letters and digits: marks are dropped
// after canonical decomposition (Yoruba/Igbo dots and accents), and every
// space, hyphen, slash, apostrophe or other punctuation disappears.
func Of(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if !ascii {
		s = norm.NFD.String(s)
	}
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case r >= 'A' && r <= 'Z':
			b.WriteRune(r + ('a' - 'A'))
		case r < utf8.RuneSelf, unicode.Is(unicode.Mn, r):
			// punctuation, spaces and combining marks carry no meaning here
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// TrimSuffixes removes the first of suffixes that k ends with, when
// something is left of k.
func TrimSuffixes(k string, suffixes ...string) string {
	for _, s := range suffixes {
		if len(k) > len(s) && strings.HasSuffix(k, s) {
			return k[:len(k)-len(s)]
		}
	}
	return k
}
