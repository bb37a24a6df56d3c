package passwords

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCheck(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		password string
		want     Weakness
	}{
		{"          ", OnlySpace},
		{"\t\t\t\t\t\n\n\n\n\n", OnlySpace},
		{"\u00a0\u00a0\u00a0\u00a0\u00a0\u00a0\u00a0\u00a0\u00a0\u00a0", OnlySpace}, // no-break spaces
		{"aaaaaaaaaa", Repetitive},
		{"AaAaAaAaAa", Repetitive},
		{"abababababab", Repetitive},
		{"1234567890", Common},
		{"qwertyuiop", Common},
		{"QwertyUIOP", Common},
		{"password123", Common},
		{"Password2024!", Common}, // a common word with digits and a symbol added
		{"sunshine!!!!", Common},
		{"iloveyou12", Common},
		{"correct horse battery", ""},
		{"Ìbàdàn-market-1987", ""},
		{"tolu-and-the-blue-kettle", ""},
		{"abc1234567890", ""}, // a three-letter stem is too short to call common
	} {
		if got := Check(tc.password); got != tc.want {
			t.Errorf("Check(%q) = %q; want %q", tc.password, got, tc.want)
		}
	}
}

func TestTheListIsLoaded(t *testing.T) {
	t.Parallel()
	if n := Size(); n < 40_000 {
		t.Fatalf("%d common passwords; the generated list has about 49,000", n)
	}
	if !strings.Contains(commonTxt, "# Source: npm @zxcvbn-ts/language-common@") || !strings.Contains(commonTxt, "# Licence: MIT") {
		t.Fatal("common.txt lost its source or licence header")
	}
	if _, header := common()["# licence: mit (license.zxcvbn-ts.txt beside this file)."]; header {
		t.Fatal("a header line was read as a password")
	}
}

func FuzzCheck(f *testing.F) {
	for _, s := range []string{"", "          ", "aaaaaaaaaa", "Password2024!", "correct horse battery", "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		w := Check(p)
		if strings.TrimSpace(p) == "" && w != OnlySpace {
			t.Fatalf("blank %q: %q", p, w)
		}
		if w == "" && utf8.ValidString(p) && distinct(strings.ToLower(p)) < MinDistinct {
			t.Fatalf("%q accepted with fewer than %d characters", p, MinDistinct)
		}
	})
}

// BenchmarkCheck is what a sign-up pays for the list once it is loaded.
func BenchmarkCheck(b *testing.B) {
	Size()
	for b.Loop() {
		Check("tolu-and-the-blue-kettle")
	}
}

// BenchmarkLoad is the one-off cost of reading the embedded list.
func BenchmarkLoad(b *testing.B) {
	for b.Loop() {
		_, body, _ := strings.Cut(commonTxt, "\n\n")
		set := make(map[string]struct{}, 50_000)
		for w := range strings.Lines(body) {
			set[strings.TrimSuffix(w, "\n")] = struct{}{}
		}
	}
}
