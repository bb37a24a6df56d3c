// Package report is the reporting context's domain: the facts a KYC
// report carries (the customer profile kept from customer-events and the
// verification outcome carried by verification.completed/rejected), the
// stored report versions, and the use cases that render, serve and
// vouch for them. It knows nothing of HTTP, SQL, Kafka or PDF internals.
package report

import (
	"regexp"
	"strings"
	"time"
)

// Environments a caller works in (the principal's).
const (
	EnvTest = "test"
	EnvLive = "live"
)

// Final customer statuses: the only ones a report is rendered for.
const (
	Verified = "VERIFIED"
	Rejected = "REJECTED"
)

// Lagos is the platform's local time (WAT, UTC+1 all year: Nigeria has no
// daylight saving, so a fixed zone needs no tz database in the image).
var Lagos = time.FixedZone("WAT", 3600)

// Caller is who asks: every read is scoped by organization and
// environment. Plan is the organization's (the gateway's principal says).
type Caller struct {
	OrgID, Env string
	Plan       string
}

// Customer is the profile this context keeps from customer-events (BVN
// and NIN arrive masked and are masked again before they are printed).
type Customer struct {
	ID, OrgID, Env string
	FirstName      string
	LastName       string
	Phone          string
	Email          string
	Occupation     string
	BVN            string
	NIN            string
	PassportNumber string
	LoanID         string
	LoanType       string
	Deleted        bool
}

// Report is one stored rendering of a customer's report. A customer has
// one version per verification outcome; the newest is the one served.
type Report struct {
	ID          string
	CustomerID  string
	OrgID, Env  string
	Version     int
	EventID     string
	Status      string
	ObjectKey   string
	SHA256      string
	Size        int64
	Code        string
	GeneratedAt time.Time
}

// maskedID is how the customer context shows a BVN or NIN.
var maskedID = regexp.MustCompile(`^\*\*\*[0-9]{4}$`)

// MaskID returns an identifier as it may appear on a report: `***` and the
// last four digits. The customer context masks BVN/NIN before they leave
// it; this masks again whatever arrives, so that a producer's mistake can
// never print a full number.
func MaskID(v string) string {
	v = strings.TrimSpace(v)
	if v == "" || maskedID.MatchString(v) {
		return v
	}
	digits := strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, v)
	if len(digits) < 4 {
		return "***"
	}
	return "***" + digits[len(digits)-4:]
}
