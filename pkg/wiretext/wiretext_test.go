package wiretext

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/kycfield/kyc/pkg/apperr"
)

func TestValid(t *testing.T) {
	for s, want := range map[string]bool{
		"":                       true,
		"Ngozi Okafor":           true,
		"Adébísí ₦ 日本":           true,
		"tab\tand\nline":         true,
		"nul\x00":                false,
		"\x00":                   false,
		"bad \xff byte":          false,
		"cut \xe2\x82":           false, // a truncated ₦
		"surrogate \xed\xa0\x80": false,
	} {
		if got := Valid(s); got != want {
			t.Errorf("Valid(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestRequest(t *testing.T) {
	cases := []struct {
		name   string
		target string
		header map[string]string
		field  string // "" means accepted
	}{
		{"plain", "/api/v1/customers?search=ngozi&limit=5", map[string]string{"Authorization": "Bearer mk_test_1"}, ""},
		{"encoded utf-8", "/api/v1/customers?search=Ad%C3%A9b%C3%ADs%C3%AD", nil, ""},
		{"NUL in a query value", "/api/v1/customers?search=%00", nil, "search"},
		{"invalid UTF-8 in a query value", "/api/v1/customers?limit=5&search=%FF", nil, "search"},
		{"NUL in a query name", "/api/v1/customers?se%00arch=x", nil, "query"},
		{"invalid UTF-8 in a query name", "/api/v1/customers?%C3=x", nil, "query"},
		{"NUL in the path", "/api/v1/customers/cus_%00", nil, "path"},
		{"invalid UTF-8 in the path", "/api/v1/customers/cus_%C3%28", nil, "path"},
		{"invalid UTF-8 in a header", "/api/v1/customers", map[string]string{"X-Note": "caf\xe9"}, "header X-Note"},
		{"NUL in a header", "/api/v1/customers", map[string]string{"Idempotency-Key": "k\x00"}, "header Idempotency-Key"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, c.target, nil)
			for k, v := range c.header {
				r.Header[k] = []string{v}
			}
			err := Request(r)
			if c.field == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			e, ok := apperr.As(err)
			if !ok || e.Kind != apperr.KindInvalid || e.Code != apperr.CodeValidation || len(e.Details) != 1 ||
				e.Details[0].Field != c.field || e.Details[0].Message != Message {
				t.Fatalf("got %#v, want a validation error on %q", err, c.field)
			}
		})
	}
}

func TestPlain(t *testing.T) {
	for _, c := range []struct {
		s    string
		want bool
	}{
		{"", true},
		{"Ngozi Okafor, 12 Admiralty Way", true},
		{"Adébísí ₦ 日本 🇳🇬", true},
		{"gate\tcode", true},
		{"line one\nline two", true},
		{"windows\r\nline", true},
		{"nul\x00", false},
		{"clear screen \x1b[2J", false},
		{"bell\a", false},
		{"back\bspace", false},
		{"lone carriage\rreturn", false},
		{"ends in a carriage return\r", false},
		{"delete\x7f", false},
		{"C1 next line \u0085", false},
		{"C1 CSI \u009b2J", false},
		{"bad \xff byte", false},
		{"cut \xe2\x82", false},
		{"zero\u200bwidth", true}, // format characters are for the duplicate keys to fold, not refused
	} {
		if got := Plain(c.s); got != c.want {
			t.Errorf("Plain(%q) = %v, want %v", c.s, got, c.want)
		}
	}
}

// FuzzPlain holds Plain to its definition: valid UTF-8 whose only
// control characters are tab, line feed and CRLF pairs.
func FuzzPlain(f *testing.F) {
	for _, s := range []string{"", "a\r\nb", "\x1b[2J", "\u0085", "\xff", "a\rb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := utf8.ValidString(s)
		rs := []rune(s)
		for i, r := range rs {
			if unicode.IsControl(r) && r != '\t' && r != '\n' && !(r == '\r' && i+1 < len(rs) && rs[i+1] == '\n') {
				want = false
			}
		}
		if got := Plain(s); got != want {
			t.Fatalf("Plain(%q) = %v, want %v", s, got, want)
		}
	})
}
