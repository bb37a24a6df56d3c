package report

import "time"

// Outcome is what verification.completed and verification.rejected carry
// (the status endpoint's data), read into this context's own types: only
// the fields a report prints. Optional members are omitempty so that the
// contract test holds the producer only to what must always be there.
type Outcome struct {
	CustomerID       string     `json:"customerId"`
	CustomerName     string     `json:"customerName"`
	OverallStatus    string     `json:"overallStatus"`
	LoanID           *string    `json:"loanId"`
	LoanType         *string    `json:"loanType"`
	VerificationDate *time.Time `json:"verificationDate"`
	Addresses        []Address  `json:"addresses"`
	Documents        []Document `json:"documents"`
}

// Address is an address as submitted, with its outcome.
type Address struct {
	ID               string            `json:"id"`
	Label            *string           `json:"label"`
	StreetNumber     *string           `json:"streetNumber"`
	StreetName       string            `json:"streetName"`
	Landmark         *string           `json:"landmark"`
	City             string            `json:"city"`
	LGA              *string           `json:"lga"`
	State            string            `json:"state"`
	Country          string            `json:"country"`
	Notes            *string           `json:"notes"`
	Status           string            `json:"status"`
	VerificationData *VerificationData `json:"verificationData"`
	ExpectedLocation *Expected         `json:"expectedLocation,omitempty"`
}

// Expected is where an address should be (the gazetteer's town, LGA or
// state point).
type Expected struct {
	Latitude  float64 `json:"latitude"`
	Longitude float64 `json:"longitude"`
	Precision string  `json:"precision"`
}

// FlagDetail is one evidence flag as a person reads it.
type FlagDetail struct {
	Code     string `json:"code"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
}

// VerificationData is the evidence of an address's visits.
type VerificationData struct {
	VerifiedAddress            string       `json:"verifiedAddress,omitempty"`
	VerifiedAt                 *time.Time   `json:"verifiedAt,omitempty"`
	VerifiedLatitude           *float64     `json:"verifiedLatitude,omitempty"`
	VerifiedLongitude          *float64     `json:"verifiedLongitude,omitempty"`
	AgentNotes                 string       `json:"agentNotes,omitempty"`
	Agent                      *Agent       `json:"agent,omitempty"`
	DistanceFromCheckInMeters  *float64     `json:"distanceFromCheckInMeters,omitempty"`
	GPSAccuracyMeters          *float64     `json:"gpsAccuracyMeters,omitempty"`
	Building                   *Building    `json:"building,omitempty"`
	Resident                   *Resident    `json:"resident,omitempty"`
	Neighbour                  *Neighbour   `json:"neighbour,omitempty"`
	Flags                      []string     `json:"flags,omitempty"`
	FlagDetails                []FlagDetail `json:"flagDetails,omitempty"`
	DistanceFromExpectedMeters *float64     `json:"distanceFromExpectedMeters,omitempty"`
	Reason                     string       `json:"reason,omitempty"`
	Diagnostics                string       `json:"diagnostics,omitempty"`
	Photos                     []Photo      `json:"verificationPhotos"`
	Attempts                   []Attempt    `json:"attempts"`
	CheckIn                    *Fix         `json:"checkIn,omitempty"`
	// Review is operations' quality-review decision, when one was made.
	Review *Review `json:"review,omitempty"`
}

// Review is a reviewer's decision on the address before its release.
type Review struct {
	Decision   string     `json:"decision"`
	ReviewedBy string     `json:"reviewedBy"`
	ReviewedAt *time.Time `json:"reviewedAt"`
	Note       string     `json:"note,omitempty"`
}

// Fix is a position the agent's phone recorded.
type Fix struct {
	Latitude       float64    `json:"latitude"`
	Longitude      float64    `json:"longitude"`
	AccuracyMeters *float64   `json:"accuracyMeters,omitempty"`
	At             *time.Time `json:"at,omitempty"`
}

// Agent is who visited.
type Agent struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// Building is what the agent saw.
type Building struct {
	Type        string `json:"type,omitempty"`
	Colour      string `json:"colour,omitempty"`
	GatePresent *bool  `json:"gatePresent,omitempty"`
}

// Resident is who the agent met.
type Resident struct {
	Name           string `json:"name,omitempty"`
	Relationship   string `json:"relationship,omitempty"`
	YearsAtAddress *int   `json:"yearsAtAddress,omitempty"`
}

// Neighbour is a neighbour's confirmation.
type Neighbour struct {
	Confirmed bool   `json:"confirmed"`
	Notes     string `json:"notes,omitempty"`
}

// Photo is a photo's id and stable URL with its tag and capture time.
// The id is what the photo is fetched by; the URL is printed.
type Photo struct {
	ID                           string     `json:"id"`
	URL                          string     `json:"url"`
	Tag                          string     `json:"tag"`
	CapturedAt                   *time.Time `json:"capturedAt"`
	Latitude                     *float64   `json:"latitude,omitempty"`
	Longitude                    *float64   `json:"longitude,omitempty"`
	DistanceFromCompletionMeters *float64   `json:"distanceFromCompletionMeters,omitempty"`
}

// Attempt is a visit that did not end the address.
type Attempt struct {
	At     *time.Time `json:"at"`
	Reason string     `json:"reason"`
	Notes  string     `json:"notes,omitempty"`
	By     string     `json:"by"`
}

// Document is a supporting document as the customer read shows it.
type Document struct {
	ID           string     `json:"id"`
	DocumentType string     `json:"documentType"`
	FileName     *string    `json:"fileName"`
	FileType     *string    `json:"fileType"`
	FileSize     *int64     `json:"fileSize"`
	UploadedAt   *time.Time `json:"uploadedAt"`
	Verified     bool       `json:"verified"`
}

// Final reports whether status ends a customer's verification.
func Final(status string) bool { return status == Verified || status == Rejected }
