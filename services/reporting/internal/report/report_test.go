package report_test

import (
	"testing"

	"github.com/kycfield/kyc/services/reporting/internal/report"
)

func TestMaskIDNeverLetsAFullNumberThrough(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", ""},
		{"***1234", "***1234"},
		{"22212345678", "***5678"},
		{" 222 1234 5678 ", "***5678"},
		{"123", "***"},
		{"**1234", "***1234"},
		{"ABCD", "***"},
	}
	for _, tc := range cases {
		if got := report.MaskID(tc.in); got != tc.want {
			t.Errorf("MaskID(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestValidCode(t *testing.T) {
	code := report.NewCode()
	cases := []struct {
		in   string
		want bool
	}{
		{code, true},
		{report.NewCode(), true},
		{"", false},
		{code[:23], false},
		{code + "A", false},
		{"abcdefghijklmnopqrstuvwx", false}, // base32 is upper case
		{"ABCDEFGHIJKLMNOPQRSTUVW1", false}, // 1 is not in the alphabet
	}
	for _, tc := range cases {
		if got := report.ValidCode(tc.in); got != tc.want {
			t.Errorf("ValidCode(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
	if other := report.NewCode(); other == code {
		t.Fatal("two codes are the same")
	}
}

func FuzzMaskID(f *testing.F) {
	f.Add("22212345678")
	f.Add("***1234")
	f.Fuzz(func(t *testing.T, s string) {
		got := report.MaskID(s)
		digits := 0
		for _, r := range got {
			if r >= '0' && r <= '9' {
				digits++
			}
		}
		if digits > 4 {
			t.Fatalf("MaskID(%q) = %q shows %d digits", s, got, digits)
		}
	})
}
