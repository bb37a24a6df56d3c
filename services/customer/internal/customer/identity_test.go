package customer

import "testing"

// The duplicate rule compares keys: the spellings of the issue that made
// a "new" customer are one identity now.
func TestIdentityComparesKeys(t *testing.T) {
	base := identity(Customer{Phone: "+2348031234567", Email: "ngozi@example.com", LoanID: "LN-2026/0042"}, nil)
	for name, c := range map[string]Customer{
		"loanId with a zero-width space": {LoanID: "LN-2026\u200b/0042"},
		"loanId with a fullwidth hyphen": {LoanID: "LN\uff0d2026/0042"},
		"loanId in lower case":           {LoanID: "ln-2026/0042"},
		"loanId with an en dash":         {LoanID: "LN\u20132026/0042"},
	} {
		if got := identity(c, []string{"loanId"}); got["loanId"] != base["loanId"] {
			t.Errorf("%s: key %q, want %q", name, got["loanId"], base["loanId"])
		}
	}
	for _, in := range []string{"Ngozi@Example.COM", "ngozi\u200b@example.com", "ｎｇｏｚｉ＠ｅｘａｍｐｌｅ.ｃｏｍ", "\u2060ngozi@example.com"} {
		e, msg := NormalizeEmail(in)
		if msg != "" || e != "ngozi@example.com" {
			t.Errorf("NormalizeEmail(%q) = %q %q: the stored address keeps what cannot be seen", in, e, msg)
		}
		if got := identity(Customer{Email: in}, nil)["email"]; got != base["email"] {
			t.Errorf("email %q: key %q, want %q", in, got, base["email"])
		}
	}
	for _, other := range []string{"ngozi+loans@example.com", "n.gozi@example.com"} {
		if identity(Customer{Email: other}, nil)["email"] == base["email"] {
			t.Errorf("%q is taken for ngozi@example.com", other)
		}
	}
	if len(identity(Customer{LoanID: "\u200b"}, nil)) != 0 {
		t.Error("a loanId of invisible characters only is an identity")
	}
}
