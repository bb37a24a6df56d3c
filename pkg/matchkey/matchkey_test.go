package matchkey

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestReference(t *testing.T) {
	const want = "ln-2026/0042"
	for name, in := range map[string]string{
		"as sent":                   "LN-2026/0042",
		"lower case":                "ln-2026/0042",
		"zero-width space":          "LN-20\u200b26/0042",
		"zero-width joiner":         "LN\u200d-2026/0042",
		"byte order mark":           "\ufeffLN-2026/0042",
		"soft hyphen":               "LN-20\u00ad26/0042",
		"right-to-left mark":        "LN-2026/0042\u200f",
		"fullwidth hyphen-minus":    "LN\uff0d2026/0042",
		"fullwidth everything":      "ＬＮ－２０２６／００４２",
		"en dash":                   "LN\u20132026/0042",
		"em dash":                   "LN\u20142026/0042",
		"hyphen":                    "LN\u20102026/0042",
		"non-breaking hyphen":       "LN\u20112026/0042",
		"figure dash":               "LN\u20122026/0042",
		"minus sign":                "LN\u22122026/0042",
		"small hyphen-minus":        "LN\ufe632026/0042",
		"surrounding white space":   "  LN-2026/0042\t",
		"mathematical bold letters": "\U0001d40b\U0001d40d-2026/0042",
	} {
		if got := Reference(in); got != want {
			t.Errorf("%s: Reference(%q) = %q, want %q", name, in, got, want)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"LN 2026\u00a0 0042", "ln 2026 0042"}, // no-break space, runs of spaces
		{"STRASSE-1", "strasse-1"},
		{"straße-1", "strasse-1"}, // full case folding
		{"LN_2026", "ln_2026"},    // an underscore is not a dash
		{"LN.2026", "ln.2026"},
		{"", ""},
		{"\u200b", ""},
	} {
		if got := Reference(c.in); got != c.want {
			t.Errorf("Reference(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if Reference("LN-2026-0042") == Reference("LN-2026-0043") || Reference("LN-1") == Reference("LN1") {
		t.Error("different references share a key")
	}
}

func TestEmail(t *testing.T) {
	const want = "ngozi.okafor@example.com"
	for name, in := range map[string]string{
		"as sent":          "ngozi.okafor@example.com",
		"upper case":       "Ngozi.Okafor@EXAMPLE.COM",
		"zero-width space": "ngozi.oka\u200bfor@example.com",
		"word joiner":      "ngozi\u2060.okafor@example.com",
		"soft hyphen":      "ngozi.okafor@exam\u00adple.com",
		"fullwidth":        "ｎｇｏｚｉ.ｏｋａｆｏｒ＠ｅｘａｍｐｌｅ.ｃｏｍ",
		"white space":      " ngozi.okafor@example.com\u00a0",
	} {
		if got := Email(in); got != want {
			t.Errorf("%s: Email(%q) = %q, want %q", name, in, got, want)
		}
	}
	// Conservative: tags and dots name other mailboxes.
	for _, other := range []string{"ngozi.okafor+loans@example.com", "ngoziokafor@example.com", "ngozi-okafor@example.com"} {
		if Email(other) == want {
			t.Errorf("Email(%q) matches %q", other, want)
		}
	}
}

// FuzzReference: a key is its own key, holds no format character, no
// dash but '-', no white space but single inner spaces, and no upper case
// letter that folding would change.
func FuzzReference(f *testing.F) {
	for _, s := range []string{"LN-2026/0042", "ＬＮ－２０２６", "a\u200bb", "ß", "\u0130", "ǅ", "ﬃ", "  a  b ", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k := Reference(s)
		if Reference(k) != k {
			t.Fatalf("Reference(%q) = %q, but Reference(%q) = %q", s, k, k, Reference(k))
		}
		if k != strings.TrimSpace(k) || strings.Contains(k, "  ") {
			t.Fatalf("Reference(%q) = %q keeps outer or repeated space", s, k)
		}
		for _, r := range k {
			if unicode.Is(unicode.Cf, r) || (unicode.Is(unicode.Pd, r) || isMinus(r)) && r != '-' {
				t.Fatalf("Reference(%q) = %q keeps %U", s, k, r)
			}
		}
		if utf8.ValidString(s) && Reference(strings.ToUpper(s)) != Reference(strings.ToLower(s)) && simpleCase(s) {
			t.Fatalf("Reference differs by case for %q", s)
		}
	})
}

// simpleCase reports whether upper- and lower-casing s rune by rune are
// each other's inverse (not so for ß, İ, or Σ at a word end), so case
// alone separates them.
func simpleCase(s string) bool {
	for _, r := range s {
		if unicode.ToLower(unicode.ToUpper(r)) != unicode.ToLower(r) || unicode.ToUpper(unicode.ToLower(r)) != unicode.ToUpper(r) {
			return false
		}
	}
	return true
}

// FuzzEmail: a key is its own key, with no format character or space.
func FuzzEmail(f *testing.F) {
	for _, s := range []string{"Ngozi@Example.com", "a\u200b@b.c", "ｎ＠ｅ.ｃ", "a+b@c.d", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k := Email(s)
		if Email(k) != k {
			t.Fatalf("Email(%q) = %q, but Email(%q) = %q", s, k, k, Email(k))
		}
		for _, r := range k {
			if unicode.Is(unicode.Cf, r) || unicode.IsSpace(r) {
				t.Fatalf("Email(%q) = %q keeps %U", s, k, r)
			}
		}
	})
}
