package customer

import (
	"fmt"
	"net/mail"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/optional"
	"github.com/kycfield/kyc/pkg/publicurl"
	"github.com/kycfield/kyc/pkg/wiretext"
)

// The rules: how each input is checked and normalised. Every problem is
// collected, so one request reports all of them.

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

// NormalizeEmail checks an email address and lower-cases it, after
// visibleEmail (no invisible characters are stored).
func NormalizeEmail(s string) (string, string) {
	s = strings.ToLower(strings.TrimSpace(visibleEmail(s)))
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
	if !wiretext.Plain(s) || !multiline && strings.ContainsAny(s, "\t\n\r") {
		return "", "must not contain control characters"
	}
	return s, ""
}

// personal validates and applies the set fields of f to c. create says
// whether the required fields must be present; on update a null or empty
// optional field clears it.
func personal(ck *apperr.Checker, c *Customer, f Fields, create bool) []string {
	var changed []string
	set := func(name string, dst *string, v string) {
		if *dst != v {
			*dst = v
			changed = append(changed, name)
		}
	}
	required := func(name string, fv optional.Field[string], norm func(string) (string, string), dst *string) {
		switch {
		case !fv.Set && create, fv.Set && fv.Null:
			ck.Fail(name, "is required")
		case fv.Set:
			if v, msg := norm(fv.V); msg != "" {
				ck.Fail(name, "%s", msg)
			} else {
				set(name, dst, v)
			}
		}
	}
	clearable := func(name string, fv optional.Field[string], check func(string) (string, string), dst *string) {
		if !fv.Set {
			return
		}
		if fv.Null || strings.TrimSpace(fv.V) == "" {
			set(name, dst, "")
			return
		}
		if v, msg := check(fv.V); msg != "" {
			ck.Fail(name, "%s", msg)
		} else {
			set(name, dst, v)
		}
	}
	required("firstName", f.FirstName, NormalizeName, &c.FirstName)
	required("lastName", f.LastName, NormalizeName, &c.LastName)
	required("phone", f.Phone, NormalizePhone, &c.Phone)
	clearable("email", f.Email, NormalizeEmail, &c.Email)
	clearable("occupation", f.Occupation, func(s string) (string, string) { return cleanText(s, maxOccupation, false) }, &c.Occupation)
	idNumber := func(s string) (string, string) {
		if !ValidIdentityNumber(s) {
			return "", "must be exactly 11 digits"
		}
		return s, ""
	}
	clearable("bvn", f.BVN, idNumber, &c.BVN)
	clearable("nin", f.NIN, idNumber, &c.NIN)
	clearable("passportNumber", f.PassportNumber, func(s string) (string, string) {
		s = strings.ToUpper(strings.TrimSpace(s))
		if len(s) < 5 || len(s) > 20 || strings.IndexFunc(s, func(r rune) bool { return !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') }) >= 0 {
			return "", "must be 5-20 letters and digits"
		}
		return s, ""
	}, &c.PassportNumber)
	clearable("loanId", f.LoanID, func(s string) (string, string) { return cleanText(s, maxLoanID, false) }, &c.LoanID)
	clearable("loanType", f.LoanType, func(s string) (string, string) {
		if !slices.Contains(LoanTypes, s) {
			return "", "must be one of " + strings.Join(LoanTypes, ", ")
		}
		return s, ""
	}, &c.LoanType)
	return changed
}

// checkAddress validates one address; path prefixes field names.
func checkAddress(ck *apperr.Checker, in AddressInput, path string) Address {
	var a Address
	text := func(name string, fv optional.Field[string], max int, required, multiline bool, dst *string) {
		if !fv.Has() || strings.TrimSpace(fv.V) == "" {
			if required {
				ck.Fail(path+name, "is required")
			}
			return
		}
		if v, msg := cleanText(fv.V, max, multiline); msg != "" {
			ck.Fail(path+name, "%s", msg)
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
	checkPlace(ck, &a, path)
	if a.Country == "" {
		a.Country = "Nigeria"
	}
	a.Status = AddressPending
	return a
}

// checkDocument validates one document reference. Sandbox accepts http
// URLs; live requires https.
func checkDocument(ck *apperr.Checker, in DocumentInput, path, env string) Document {
	var d Document
	switch {
	case !in.DocumentType.Has():
		ck.Fail(path+"documentType", "is required")
	case !slices.Contains(DocumentTypes, in.DocumentType.V):
		ck.Fail(path+"documentType", "must be one of %s", strings.Join(DocumentTypes, ", "))
	default:
		d.DocumentType = in.DocumentType.V
	}
	if in.FileName.Has() {
		if v, msg := cleanText(in.FileName.V, maxFileName, false); msg != "" || v == "" {
			ck.Fail(path+"fileName", "must be 1-%d characters", maxFileName)
		} else {
			d.FileName = v
		}
	}
	if in.FileURL.Has() {
		if msg := publicurl.Check(in.FileURL.V, env == EnvTest); msg != "" {
			ck.Fail(path+"fileUrl", "%s", msg)
		} else {
			d.FileURL = in.FileURL.V
		}
	}
	if in.FileType.Has() {
		if !slices.Contains(AllowedFileTypes, in.FileType.V) {
			ck.Fail(path+"fileType", "must be one of %s", strings.Join(AllowedFileTypes, ", "))
		} else {
			d.FileType = in.FileType.V
		}
	}
	if in.FileSize.Has() {
		if in.FileSize.V < 1 || in.FileSize.V > maxDocumentSize {
			ck.Fail(path+"fileSize", "must be between 1 and %d bytes", maxDocumentSize)
		} else {
			d.FileSize = in.FileSize.V
		}
	}
	return d
}
