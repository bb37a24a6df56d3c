package customer

import (
	"fmt"
	"net"
	"net/mail"
	"net/url"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/principal"
)

// Field is an input value that may be absent, explicitly null, or set.
// Partial updates need all three.
type Field[T any] struct {
	Set  bool // present in the request (possibly null)
	Null bool
	// Bad marks a value of the wrong JSON type, already reported by the
	// decoder; rules skip it so that one mistake gives one message.
	Bad bool
	V   T
}

// Has reports whether the field carries a usable value.
func (f Field[T]) Has() bool { return f.Set && !f.Null && !f.Bad }

// Value returns a set field.
func Value[T any](v T) Field[T] { return Field[T]{Set: true, V: v} }

// Fields are the personal details shared by create and update.
type Fields struct {
	FirstName, LastName, Phone, Email, Occupation Field[string]
	BVN, NIN, PassportNumber, LoanID, LoanType    Field[string]
}

// CreateInput is the body of POST /customers.
type CreateInput struct {
	Fields
	Addresses   Field[[]AddressInput]
	Documents   Field[[]DocumentInput]
	RelogReason Field[string]
}

// AddressInput is one submitted address.
type AddressInput struct {
	Label, StreetNumber, StreetName, Landmark, City, LGA, State, Country, Notes Field[string]
}

// DocumentInput is one submitted document reference.
type DocumentInput struct {
	FileName, FileURL, FileType, DocumentType Field[string]
	FileSize                                  Field[int64]
}

// Limits on free text.
const (
	maxAddressText  = 200
	maxNotes        = 1000
	maxRelogReason  = 500
	maxOccupation   = 100
	maxLoanID       = 100
	maxFileName     = 255
	maxDocumentSize = 10 << 20
)

// AllowedFileTypes are the MIME types accepted for documents.
var AllowedFileTypes = []string{"image/jpeg", "image/png", "image/webp", "application/pdf"}

type checker struct{ details []apperr.Detail }

func (c *checker) fail(field, format string, args ...any) {
	c.details = append(c.details, apperr.Detail{Field: field, Message: fmt.Sprintf(format, args...)})
}

func (c *checker) err() error {
	if len(c.details) == 0 {
		return nil
	}
	return apperr.Validation(c.details...)
}

// NormalizeName trims, NFC-normalises and collapses spaces in a legal
// name, and checks it: 2-50 characters of letters (any script, with their
// accents), spaces, hyphens and apostrophes, starting and ending with a
// letter.
func NormalizeName(s string) (string, string) {
	s = norm.NFC.String(strings.Join(strings.Fields(s), " "))
	n := utf8.RuneCountInString(s)
	if n < 2 || n > 50 {
		return "", "must be 2-50 characters"
	}
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.Is(unicode.Mn, r) && r != ' ' && r != '-' && r != '\'' && r != '’' {
			return "", "may contain only letters, spaces, hyphens and apostrophes"
		}
	}
	first, _ := utf8.DecodeRuneInString(s)
	last, _ := utf8.DecodeLastRuneInString(s)
	if !unicode.IsLetter(first) || !(unicode.IsLetter(last) || unicode.Is(unicode.Mn, last)) {
		return "", "must start and end with a letter"
	}
	return s, ""
}

// NormalizePhone accepts a Nigerian number in E.164 form, +234 followed by
// ten digits starting with 7, 8 or 9; spaces are removed, anything else is
// refused.
func NormalizePhone(s string) (string, string) {
	s = strings.ReplaceAll(strings.TrimSpace(s), " ", "")
	const msg = "must be a Nigerian number in E.164 format: +234 followed by 10 digits starting with 7, 8 or 9"
	if len(s) != 14 || !strings.HasPrefix(s, "+234") || !strings.ContainsRune("789", rune(s[4])) {
		return "", msg
	}
	for i := 4; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return "", msg
		}
	}
	return s, ""
}

// NormalizeEmail checks an email address and lower-cases it.
func NormalizeEmail(s string) (string, string) {
	s = strings.ToLower(strings.TrimSpace(s))
	const msg = "must be a valid email address"
	if len(s) > 254 || strings.ContainsAny(s, " <>\"") {
		return "", msg
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s {
		return "", msg
	}
	at := strings.LastIndexByte(s, '@')
	domain := s[at+1:]
	if at < 1 || !strings.Contains(domain, ".") || strings.HasPrefix(domain, ".") || strings.HasSuffix(domain, ".") || strings.Contains(domain, "..") {
		return "", msg
	}
	return s, ""
}

// ValidIdentityNumber reports whether s is exactly 11 ASCII digits (BVN, NIN).
func ValidIdentityNumber(s string) bool {
	if len(s) != 11 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Mask shows only the last four digits of a BVN or NIN ("***4567").
func Mask(s string) string {
	if len(s) < 4 {
		return "***"
	}
	return "***" + s[len(s)-4:]
}

// cleanText trims s and checks it has no control characters (newlines and
// tabs allowed only where multiline is true) and at most max characters.
func cleanText(s string, max int, multiline bool) (string, string) {
	s = norm.NFC.String(strings.TrimSpace(s))
	if utf8.RuneCountInString(s) > max {
		return "", fmt.Sprintf("must be at most %d characters", max)
	}
	for _, r := range s {
		if unicode.IsControl(r) && !(multiline && (r == '\n' || r == '\t' || r == '\r')) {
			return "", "must not contain control characters"
		}
	}
	return s, ""
}

// personal validates and applies the set fields of f to c. create says
// whether the required fields must be present; on update a null or empty
// optional field clears it.
func personal(ck *checker, c *Customer, f Fields, create bool) []string {
	var changed []string
	set := func(name string, dst *string, v string) {
		if *dst != v {
			*dst = v
			changed = append(changed, name)
		}
	}
	required := func(name string, fv Field[string], norm func(string) (string, string), dst *string) {
		switch {
		case fv.Bad:
		case !fv.Set && create, fv.Set && fv.Null:
			ck.fail(name, "is required")
		case fv.Set:
			if v, msg := norm(fv.V); msg != "" {
				ck.fail(name, "%s", msg)
			} else {
				set(name, dst, v)
			}
		}
	}
	optional := func(name string, fv Field[string], check func(string) (string, string), dst *string) {
		if !fv.Set || fv.Bad {
			return
		}
		if fv.Null || strings.TrimSpace(fv.V) == "" {
			set(name, dst, "")
			return
		}
		if v, msg := check(fv.V); msg != "" {
			ck.fail(name, "%s", msg)
		} else {
			set(name, dst, v)
		}
	}
	required("firstName", f.FirstName, NormalizeName, &c.FirstName)
	required("lastName", f.LastName, NormalizeName, &c.LastName)
	required("phone", f.Phone, NormalizePhone, &c.Phone)
	optional("email", f.Email, NormalizeEmail, &c.Email)
	optional("occupation", f.Occupation, func(s string) (string, string) { return cleanText(s, maxOccupation, false) }, &c.Occupation)
	idNumber := func(s string) (string, string) {
		if !ValidIdentityNumber(s) {
			return "", "must be exactly 11 digits"
		}
		return s, ""
	}
	optional("bvn", f.BVN, idNumber, &c.BVN)
	optional("nin", f.NIN, idNumber, &c.NIN)
	optional("passportNumber", f.PassportNumber, func(s string) (string, string) {
		s = strings.ToUpper(strings.TrimSpace(s))
		if len(s) < 5 || len(s) > 20 || strings.IndexFunc(s, func(r rune) bool { return !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') }) >= 0 {
			return "", "must be 5-20 letters and digits"
		}
		return s, ""
	}, &c.PassportNumber)
	optional("loanId", f.LoanID, func(s string) (string, string) { return cleanText(s, maxLoanID, false) }, &c.LoanID)
	optional("loanType", f.LoanType, func(s string) (string, string) {
		if !slices.Contains(LoanTypes, s) {
			return "", "must be one of " + strings.Join(LoanTypes, ", ")
		}
		return s, ""
	}, &c.LoanType)
	return changed
}

// checkAddress validates one address; path prefixes field names.
func checkAddress(ck *checker, in AddressInput, path string) Address {
	var a Address
	text := func(name string, fv Field[string], max int, required, multiline bool, dst *string) {
		if fv.Bad {
			return
		}
		if !fv.Has() || strings.TrimSpace(fv.V) == "" {
			if required {
				ck.fail(path+name, "is required")
			}
			return
		}
		if v, msg := cleanText(fv.V, max, multiline); msg != "" {
			ck.fail(path+name, "%s", msg)
		} else {
			*dst = v
		}
	}
	text("label", in.Label, maxAddressText, false, false, &a.Label)
	text("streetNumber", in.StreetNumber, maxAddressText, false, false, &a.StreetNumber)
	text("streetName", in.StreetName, maxAddressText, true, false, &a.StreetName)
	text("landmark", in.Landmark, maxAddressText, false, false, &a.Landmark)
	text("city", in.City, maxAddressText, true, false, &a.City)
	text("lga", in.LGA, maxAddressText, false, false, &a.LGA)
	text("state", in.State, maxAddressText, true, false, &a.State)
	text("country", in.Country, maxAddressText, false, false, &a.Country)
	text("notes", in.Notes, maxNotes, false, true, &a.Notes)
	if a.Country == "" {
		a.Country = "Nigeria"
	}
	a.Status = AddressPending
	return a
}

// checkDocument validates one document reference. Sandbox accepts http
// URLs; live requires https.
func checkDocument(ck *checker, in DocumentInput, path, env string) Document {
	var d Document
	if in.DocumentType.Bad {
		// reported by the decoder
	} else if !in.DocumentType.Has() {
		ck.fail(path+"documentType", "is required")
	} else if !slices.Contains(DocumentTypes, in.DocumentType.V) {
		ck.fail(path+"documentType", "must be one of %s", strings.Join(DocumentTypes, ", "))
	} else {
		d.DocumentType = in.DocumentType.V
	}
	if in.FileName.Has() {
		if v, msg := cleanText(in.FileName.V, maxFileName, false); msg != "" || v == "" {
			ck.fail(path+"fileName", "must be 1-%d characters", maxFileName)
		} else {
			d.FileName = v
		}
	}
	if in.FileURL.Has() {
		if msg := CheckPublicURL(in.FileURL.V, env == string(principal.EnvTest)); msg != "" {
			ck.fail(path+"fileUrl", "%s", msg)
		} else {
			d.FileURL = in.FileURL.V
		}
	}
	if in.FileType.Has() {
		if !slices.Contains(AllowedFileTypes, in.FileType.V) {
			ck.fail(path+"fileType", "must be one of %s", strings.Join(AllowedFileTypes, ", "))
		} else {
			d.FileType = in.FileType.V
		}
	}
	if in.FileSize.Has() {
		if in.FileSize.V < 1 || in.FileSize.V > maxDocumentSize {
			ck.fail(path+"fileSize", "must be between 1 and %d bytes", maxDocumentSize)
		} else {
			d.FileSize = in.FileSize.V
		}
	}
	return d
}

// CheckPublicURL refuses URLs that are not absolute http(s) URLs on a
// public host: no credentials, no localhost, no private, loopback,
// link-local or otherwise non-public IP literals (SSRF). It returns the
// problem, or "".
func CheckPublicURL(raw string, allowHTTP bool) string {
	if len(raw) > 2048 {
		return "must be at most 2048 characters"
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || !u.IsAbs() {
		return "must be an absolute URL"
	}
	if u.Scheme != "https" && !(allowHTTP && u.Scheme == "http") {
		if allowHTTP {
			return "must use http or https"
		}
		return "must use https"
	}
	if u.User != nil {
		return "must not contain credentials"
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") || strings.HasSuffix(host, ".internal") || strings.HasSuffix(host, ".local") {
		return "must point to a public host"
	}
	if ip := net.ParseIP(host); ip != nil {
		if !IsPublicIP(ip) {
			return "must point to a public host"
		}
		return ""
	}
	// 0x7f.1, 0177.0.0.1 and friends are IP addresses some resolvers
	// accept; a dotless name resolves only inside some network.
	if numericHost(host) || !strings.Contains(host, ".") {
		return "must point to a public host"
	}
	return ""
}

// numericHost reports whether every label of host is a decimal, octal or
// hex number, i.e. an IP address in a non-canonical spelling.
func numericHost(host string) bool {
	for _, label := range strings.Split(host, ".") {
		l := strings.TrimPrefix(label, "0x")
		if l == "" || strings.Trim(l, "0123456789abcdef") != "" || (l == label && strings.Trim(l, "0123456789") != "") {
			return false
		}
	}
	return true
}

// IsPublicIP reports whether ip is a globally routable unicast address.
func IsPublicIP(ip net.IP) bool {
	if ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsMulticast() || ip.IsUnspecified() || ip.IsInterfaceLocalMulticast() {
		return false
	}
	if v4 := ip.To4(); v4 != nil {
		// 100.64.0.0/10 carrier-grade NAT, 0.0.0.0/8, 192.0.0.0/24, 198.18.0.0/15, 240.0.0.0/4
		switch {
		case v4[0] == 0, v4[0] == 100 && v4[1]&0xc0 == 64, v4[0] == 192 && v4[1] == 0 && v4[2] == 0,
			v4[0] == 198 && (v4[1] == 18 || v4[1] == 19), v4[0] >= 240:
			return false
		}
	}
	return true
}
