package customer

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/optional"
)

func TestNormalizeName(t *testing.T) {
	cases := []struct {
		in, want string
		ok       bool
	}{
		{"Ngozi", "Ngozi", true},
		{"O'Neil", "O'Neil", true},
		{"Adé-Bísí", "Adé-Bísí", true},
		{"Ade\u0301bi\u0301si\u0301", "Adébísí", true}, // decomposed accents are composed
		{"  Mary   Jane ", "Mary Jane", true},
		{"Ọláoyè", "Ọláoyè", true},
		{"D’Angelo", "D’Angelo", true},
		{"Al", "Al", true},
		{strings.Repeat("a", 50), strings.Repeat("a", 50), true},
		{"N", "", false},
		{strings.Repeat("a", 51), "", false},
		{"", "", false},
		{"   ", "", false},
		{"Ngozi1", "", false},
		{"Ng@zi", "", false},
		{"-Ngozi", "", false},
		{"Ngozi-", "", false},
		{"'Ngozi", "", false},
		{"Ngozi\tOkafor", "Ngozi Okafor", true},
		{"Ngozi\x00", "", false},
	}
	for _, c := range cases {
		got, msg := NormalizeName(c.in)
		if (msg == "") != c.ok || got != c.want {
			t.Errorf("NormalizeName(%q) = %q, %q; want %q ok=%v", c.in, got, msg, c.want, c.ok)
		}
	}
}

func TestNormalizePhone(t *testing.T) {
	cases := []struct {
		in, want string
	}{
		{"+2348031234567", "+2348031234567"},
		{"+234 803 123 4567", "+2348031234567"},
		{" +2347012345678 ", "+2347012345678"},
		{"+2349012345678", "+2349012345678"},
		{"+2346031234567", ""}, // first digit must be 7, 8 or 9
		{"+2340031234567", ""},
		{"08031234567", ""}, // local form is not E.164
		{"2348031234567", ""},
		{"+234803123456", ""},   // 9 digits
		{"+23480312345678", ""}, // 11 digits
		{"+234-803-123-4567", ""},
		{"+234(803)1234567", ""},
		{"+15551234567", ""},
		{"+234803123456a", ""},
		{"+２３４8031234567", ""}, // full-width digits
		{"", ""},
	}
	for _, c := range cases {
		got, msg := NormalizePhone(c.in)
		if got != c.want || (msg == "") != (c.want != "") {
			t.Errorf("NormalizePhone(%q) = %q, %q; want %q", c.in, got, msg, c.want)
		}
	}
}

func TestNormalizeEmail(t *testing.T) {
	cases := []struct{ in, want string }{
		{"ngozi@example.com", "ngozi@example.com"},
		{"Ngozi.Okafor@Example.COM", "ngozi.okafor@example.com"},
		{" a+tag@sub.example.ng ", "a+tag@sub.example.ng"},
		{"a@b", ""},
		{"no-at-sign", ""},
		{"a@.com", ""},
		{"a@example.", ""},
		{"a@exa..mple.com", ""},
		{"Ngozi <ngozi@example.com>", ""},
		{"a b@example.com", ""},
		{"@example.com", ""},
		{strings.Repeat("a", 250) + "@x.com", ""},
	}
	for _, c := range cases {
		got, msg := NormalizeEmail(c.in)
		if got != c.want || (msg == "") != (c.want != "") {
			t.Errorf("NormalizeEmail(%q) = %q, %q; want %q", c.in, got, msg, c.want)
		}
	}
}

func TestIdentityNumbersAndMask(t *testing.T) {
	for in, ok := range map[string]bool{"12345678901": true, "1234567890": false, "123456789012": false, "1234567890a": false, "١٢٣٤٥٦٧٨٩٠١": false, "": false} {
		if ValidIdentityNumber(in) != ok {
			t.Errorf("ValidIdentityNumber(%q) != %v", in, ok)
		}
	}
	if got := Mask("22212345678"); got != "***5678" {
		t.Errorf("Mask = %q", got)
	}
}

func TestParseSearch(t *testing.T) {
	cases := []struct {
		in   string
		want Search
	}{
		{"Ngozi", Search{Text: "ngozi"}},
		{"  Ngozi   Okafor ", Search{Text: "ngozi okafor"}},
		{"ADÉBÍSÍ", Search{Text: "adebisi"}},
		{"0803123", Search{PhonePrefix: "+234803123"}},
		{"+234 803 12", Search{PhonePrefix: "+23480312"}},
		{"234803", Search{PhonePrefix: "+234803"}},
		{"1234567", Search{Text: "1234567"}},
		{"ngozi@example", Search{Text: "ngozi@example"}},
	}
	for _, c := range cases {
		if got := ParseSearch(c.in); got != c.want {
			t.Errorf("ParseSearch(%q) = %+v, want %+v", c.in, got, c.want)
		}
	}
}

func TestParseListQuery(t *testing.T) {
	s := func(v string) *string { return &v }
	who := Caller{OrgID: "org_1", Env: "test"}
	cursor := Cursor{ID: "cus_0123456789abcdef0123456789abcdef"}.Encode()
	cases := []struct {
		name    string
		raw     RawListQuery
		wantErr string // field named in the error, "" for none
		check   func(ListQuery) bool
	}{
		{"defaults", RawListQuery{}, "", func(q ListQuery) bool { return q.Page == 1 && q.Limit == 20 }},
		{"explicit", RawListQuery{Page: s("3"), Limit: s("100"), Status: s("verified")}, "", func(q ListQuery) bool {
			return q.Page == 3 && q.Limit == 100 && q.Status == StatusVerified && q.Offset() == 200
		}},
		{"limit zero", RawListQuery{Limit: s("0")}, "limit", nil},
		{"limit too big", RawListQuery{Limit: s("101")}, "limit", nil},
		{"limit not a number", RawListQuery{Limit: s("ten")}, "limit", nil},
		{"page zero", RawListQuery{Page: s("0")}, "page", nil},
		{"page negative", RawListQuery{Page: s("-1")}, "page", nil},
		{"bad status", RawListQuery{Status: s("DONE")}, "status", nil},
		{"too deep", RawListQuery{Page: s("501"), Limit: s("20")}, "page", nil},
		{"deep enough to overflow the offset", RawListQuery{Page: s("9223372036854775807"), Limit: s("100")}, "page", nil},
		{"the largest page times the largest limit", RawListQuery{Page: s("92233720368547758"), Limit: s("100")}, "page", nil},
		{"deepest allowed", RawListQuery{Page: s("500"), Limit: s("20")}, "", func(q ListQuery) bool { return q.Offset() == 9980 }},
		{"bad cursor", RawListQuery{Cursor: s("nope")}, "cursor", nil},
		{"cursor and page", RawListQuery{Cursor: s(cursor), Page: s("2")}, "page", nil},
		{"cursor", RawListQuery{Cursor: s(cursor)}, "", func(q ListQuery) bool { return q.Cursor != nil && q.Page == 0 }},
		{"long search", RawListQuery{Search: s(strings.Repeat("a", 101))}, "search", nil},
		{"blank search ignored", RawListQuery{Search: s("   ")}, "", func(q ListQuery) bool { return q.Search == (Search{}) }},
		{"NUL search", RawListQuery{Search: s("\x00")}, "search", nil},
		{"NUL inside a search", RawListQuery{Search: s("ngozi\x00okafor")}, "search", nil},
		{"invalid UTF-8 search", RawListQuery{Search: s("caf\xe9")}, "search", nil},
		{"NUL status", RawListQuery{Status: s("VERIFIED\x00")}, "status", nil},
		{"invalid UTF-8 cursor", RawListQuery{Cursor: s("\xff")}, "cursor", nil},
		{"NUL limit", RawListQuery{Limit: s("5\x00")}, "limit", nil},
		{"accented search", RawListQuery{Search: s("Adébísí")}, "", func(q ListQuery) bool { return q.Search.Text == "adebisi" }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q, err := ParseListQuery(who, c.raw)
			if c.wantErr == "" {
				if err != nil || (c.check != nil && !c.check(q)) {
					t.Fatalf("got %+v, %v", q, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Fatalf("want error on %s, got %v", c.wantErr, err)
			}
		})
	}
}

var e164 = regexp.MustCompile(`^\+234[789][0-9]{9}$`)

func FuzzNormalizePhone(f *testing.F) {
	for _, s := range []string{"+2348031234567", "+234 803 123 4567", "08031234567", "+234", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, msg := NormalizePhone(in)
		if msg == "" && !e164.MatchString(got) {
			t.Fatalf("accepted %q as %q", in, got)
		}
		if msg != "" && got != "" {
			t.Fatalf("rejected %q but returned %q", in, got)
		}
	})
}

func FuzzNormalizeName(f *testing.F) {
	for _, s := range []string{"Ngozi", "O'Neil", "Adé-Bísí", "  a  b ", "x\u0301y", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, msg := NormalizeName(in)
		if msg != "" {
			return
		}
		if n := utf8.RuneCountInString(got); n < 2 || n > 50 || !utf8.ValidString(got) {
			t.Fatalf("accepted %q as %q (%d runes)", in, got, n)
		}
		if again, msg := NormalizeName(got); msg != "" || again != got {
			t.Fatalf("not idempotent: %q -> %q -> %q (%s)", in, got, again, msg)
		}
	})
}

func FuzzNormalizeEmail(f *testing.F) {
	for _, s := range []string{"a@b.co", "A@B.CO", "a@b", "<a@b.co>", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, msg := NormalizeEmail(in)
		if msg != "" {
			return
		}
		if got != strings.ToLower(got) || len(got) > 254 || !strings.Contains(got, "@") {
			t.Fatalf("accepted %q as %q", in, got)
		}
		if again, msg := NormalizeEmail(got); msg != "" || again != got {
			t.Fatalf("not idempotent: %q -> %q -> %q", in, got, again)
		}
	})
}

// A document link in a create body must point to a public host, whatever
// spelling reaches the metadata address or the private network.
func TestDocumentLinksMustBePublic(t *testing.T) {
	for url, ok := range map[string]bool{
		"https://files.example.com/id.pdf": true, "http://files.example.com/id.pdf": true,
		"https://10.0.0.1/id.pdf": false, "https://169.254.169.254/latest": false, "https://[64:ff9b::a9fe:a9fe]/latest": false,
		"https://[2002:a9fe:a9fe::1]/id.pdf": false, "https://[::ffff:169.254.169.254]/id.pdf": false, "https://[::ffff:10.0.0.1]/id.pdf": false,
	} {
		var ck apperr.Checker
		checkDocument(&ck, DocumentInput{DocumentType: optional.Of("ID_CARD"), FileURL: optional.Of(url)}, "documents[0].", EnvTest)
		if err := ck.Err(); (err == nil) != ok {
			t.Errorf("%s: %v", url, err)
		}
	}
}

// ParseListQuery, reached without the transport's own check (a consumer,
// a future caller), still never passes text Postgres would refuse.
func FuzzParseListQuery(f *testing.F) {
	f.Add("1", "20", "PENDING", "ngozi", "")
	f.Add("", "", "", "\x00", "")
	f.Add("2", "5", "verified", "caf\xe9", "\xff")
	f.Fuzz(func(t *testing.T, page, limit, status, search, cursor string) {
		q, err := ParseListQuery(Caller{OrgID: "org_1", Env: EnvTest}, RawListQuery{Page: &page, Limit: &limit, Status: &status, Search: &search, Cursor: &cursor})
		if err != nil {
			if !apperr.IsCode(err, apperr.CodeValidation) {
				t.Fatalf("not a validation error: %v", err)
			}
			return
		}
		for _, s := range []string{q.Status, q.Search.Text, q.Search.PhonePrefix} {
			if !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
				t.Fatalf("accepted %q", s)
			}
		}
	})
}
