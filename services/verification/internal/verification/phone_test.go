package verification

import (
	"regexp"
	"strings"
	"testing"
)

func TestNormalPhone(t *testing.T) {
	const want = "+2348031234567"
	for _, tc := range []struct {
		in, want string
	}{
		{"+2348031234567", want},
		{"+234 803 123 4567", want},
		{"+234-803-123-4567", want},
		{"+234 (0) 803 123 4567", want},
		{"+2340803 123 4567", want},
		{"2348031234567", want},
		{"002348031234567", want},
		{"08031234567", want},
		{"0803 123 4567", want},
		{"0803-123-4567", want},
		{"0803.123.4567", want},
		{"(0803) 123 4567", want},
		{"  0803 123 4567\t", want},
		{"8031234567", want},
		{"07031234567", "+2347031234567"},
		{"09031234567", "+2349031234567"},
		// Not a Nigerian mobile number.
		{"", ""},
		{"0", ""},
		{"0803123456", ""},    // a digit short
		{"080312345678", ""},  // a digit long
		{"06031234567", ""},   // not a mobile range
		{"012345678", ""},     // a Lagos landline
		{"+448031234567", ""}, // another country
		{"+1 803 123 4567", ""},
		{"+23408031234567x", ""},
		{"0803 123 4567 ext 2", ""},
		{"0803+1234567", ""},
		{"++2348031234567", ""},
		{"O8031234567", ""},             // a letter O
		{"٠٨٠٣١٢٣٤٥٦٧", ""},             // Arabic-Indic digits
		{"2348031234567234", ""},        // 234 and too much
		{"23480312345", ""},             // 234 and too little
		{"+234 803 123 4567 0", ""},     // one too many
		{"0803/123/4567", ""},           // a separator people do not use
		{"+234 0 0803 123 4567", ""},    // two trunk zeros
		{"\u200b08031234567", ""},       // a zero-width space
		{"0803\u00a0123\u00a04567", ""}, // no-break spaces are not in the list
	} {
		got, ok := normalPhone(tc.in)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("normalPhone(%q) = %q, %v; want %q", tc.in, got, ok, tc.want)
		}
	}
}

var e164NG = regexp.MustCompile(`^\+234[789][0-9]{9}$`)

// FuzzNormalPhone: whatever is sent, an accepted phone is E.164 in a
// Nigerian mobile range, normalising it again changes nothing, and its 10
// national digits are the last 10 digits sent (no digit is invented or
// moved).
func FuzzNormalPhone(f *testing.F) {
	for _, s := range []string{"+2348031234567", "0803 123 4567", "+234 (0) 803-123-4567", "002348031234567", "2348031234567", "+", "0", "+2340"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, ok := normalPhone(in)
		if !ok {
			if got != "" {
				t.Fatalf("refused %q but returned %q", in, got)
			}
			return
		}
		if !e164NG.MatchString(got) {
			t.Fatalf("normalPhone(%q) = %q, not E.164 Nigerian mobile", in, got)
		}
		if again, ok := normalPhone(got); !ok || again != got {
			t.Fatalf("normalPhone(%q) = %q, then %q, %v", in, got, again, ok)
		}
		digits := strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return r
			}
			return -1
		}, in)
		if !strings.HasSuffix(digits, got[4:]) {
			t.Fatalf("normalPhone(%q) = %q: digits not the ones sent", in, got)
		}
	})
}
