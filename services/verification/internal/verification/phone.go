package verification

import "strings"

// normalPhone is a Nigerian mobile number in E.164 (+234 and 10 digits,
// the first 7, 8 or 9), from any of the forms people write it in:
//
//	+2348031234567   2348031234567   002348031234567
//	08031234567      0803 123 4567   0803-123-4567   +234 (0) 803 123 4567
//
// Agents type the local form (0803...) on their phones; operations record
// E.164. Both name the same agent, so sign-in (and everything else that
// takes an agent's phone) accepts either, with spaces, dashes, dots or
// brackets between the digits. Anything else (letters, a second +, a
// landline, a foreign code) is not a phone.
//
// Hand-written rather than libphonenumber: the accepted set is this one
// closed list, and a general parser accepts far more (vanity letters,
// extensions, other countries) that would then have to be refused again.
func normalPhone(s string) (string, bool) {
	var b strings.Builder
	for i, r := range strings.TrimSpace(s) {
		switch {
		case r >= '0' && r <= '9':
			b.WriteRune(r)
		case r == '+' && i == 0:
			b.WriteRune(r)
		case r == ' ' || r == '-' || r == '.' || r == '(' || r == ')':
		default:
			return "", false
		}
	}
	d := b.String()
	switch {
	case strings.HasPrefix(d, "+234"):
		d = d[4:]
	case strings.HasPrefix(d, "00234"):
		d = d[5:]
	case strings.HasPrefix(d, "234") && len(d) == 13:
		d = d[3:]
	case strings.HasPrefix(d, "+"):
		return "", false
	}
	// The trunk 0 of the local form, also written after the country code
	// ("+234 (0) 803...").
	if len(d) == 11 && d[0] == '0' {
		d = d[1:]
	}
	if len(d) != 10 || !strings.ContainsRune("789", rune(d[0])) {
		return "", false
	}
	return "+234" + d, true
}
