// Package view renders the verification context's cases as clients see
// them, on the status endpoint and in events alike.
package view

import (
	"encoding/json"
	"math"
	"net/url"
	"time"

	"github.com/kycfield/kyc/pkg/envelope"
	"github.com/kycfield/kyc/pkg/gazetteer"
	"github.com/kycfield/kyc/services/verification/internal/verification"
)

// Status is the data of GET /api/v1/verification/{customerId}/status and
// of the verification.completed and verification.rejected events.
type Status struct {
	CustomerID       string          `json:"customerId"`
	CustomerName     string          `json:"customerName"`
	OverallStatus    string          `json:"overallStatus"`
	LoanID           *string         `json:"loanId"`
	LoanType         *string         `json:"loanType"`
	VerificationDate *string         `json:"verificationDate"`
	Addresses        []Address       `json:"addresses"`
	Documents        json.RawMessage `json:"documents"`
}

// Address is an address as submitted with its verification status and
// data.
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
	// ExpectedLocation is where the address should be (the gazetteer's
	// town, LGA or state point); nil when the gazetteer cannot place it.
	ExpectedLocation *gazetteer.Location `json:"expectedLocation"`
}

// VerificationData is the spec's verificationData (verifiedAddress,
// verifiedAt, verifiedLatitude, verifiedLongitude, agentNotes,
// verificationPhotos, photoCount) and what this platform adds: who
// visited, evidence details and flags, attempts, the reason and
// diagnostics of a rejection, and the timeline.
type VerificationData struct {
	verification.Result
	// VerifiedAt shadows the Result's, in the API's millisecond form (as
	// do every time below).
	VerifiedAt         *string      `json:"verifiedAt,omitempty"`
	VerificationPhotos []Photo      `json:"verificationPhotos"`
	PhotoCount         int          `json:"photoCount"`
	Attempts           []Attempt    `json:"attempts"`
	Timeline           []Transition `json:"timeline"`
	// CheckIn is where and when the agent started the visit on site.
	CheckIn *Fix `json:"checkIn,omitempty"`
	// Review is operations' latest decision on the address, when a
	// reviewer made one.
	Review *Review `json:"review,omitempty"`
}

// Review is a reviewer's decision as the lender reads it.
type Review struct {
	Decision   string  `json:"decision"`
	ReviewedBy string  `json:"reviewedBy"`
	ReviewedAt *string `json:"reviewedAt"`
	Note       string  `json:"note,omitempty"`
}

// Fix is a position the agent's phone recorded.
type Fix struct {
	Latitude       float64  `json:"latitude"`
	Longitude      float64  `json:"longitude"`
	AccuracyMeters *float64 `json:"accuracyMeters,omitempty"`
	At             *string  `json:"at,omitempty"`
}

// Photo is a photo's id and stable URL on the gateway with its tag.
type Photo struct {
	ID         string  `json:"id"`
	URL        string  `json:"url"`
	Tag        string  `json:"tag"`
	CapturedAt *string `json:"capturedAt"`
	// Latitude and Longitude are where it was taken (the file's EXIF GPS,
	// else the app's fix), and DistanceFromCompletionMeters how far that
	// is from where the visit was completed; absent when not recorded.
	Latitude                     *float64 `json:"latitude,omitempty"`
	Longitude                    *float64 `json:"longitude,omitempty"`
	DistanceFromCompletionMeters *float64 `json:"distanceFromCompletionMeters,omitempty"`
}

// Attempt is a visit that did not end the job.
type Attempt struct {
	At     *string `json:"at"`
	Reason string  `json:"reason"`
	Notes  string  `json:"notes,omitempty"`
	By     string  `json:"by"`
}

// Transition is one step of an address's history.
type Transition struct {
	Status   string  `json:"status"`
	At       *string `json:"at"`
	By       string  `json:"by"`
	Decision string  `json:"decision,omitempty"`
	Note     string  `json:"note,omitempty"`
}

// Attempts renders a job's attempts (never null).
func Attempts(j verification.Job) []Attempt {
	out := make([]Attempt, len(j.Attempts))
	for i, a := range j.Attempts {
		out[i] = Attempt{At: envelope.Timestamp(a.At), Reason: a.Reason, Notes: a.Notes, By: a.By}
	}
	return out
}

// Renderer renders with photo URLs under the gateway's public base URL.
type Renderer struct{ BaseURL string }

// Status renders a case.
func (r Renderer) Status(c verification.Case) Status {
	s := Status{CustomerID: c.CustomerID, CustomerName: c.FirstName + " " + c.LastName, OverallStatus: c.Status,
		LoanID: opt(c.LoanID), LoanType: opt(c.LoanType), VerificationDate: ts(c.VerificationDate),
		Addresses: make([]Address, 0, len(c.Jobs)), Documents: c.Documents}
	if len(s.Documents) == 0 {
		s.Documents = json.RawMessage("[]")
	}
	for _, j := range c.Jobs {
		s.Addresses = append(s.Addresses, r.Address(j))
	}
	return s
}

// Address renders one job as its address.
func (r Renderer) Address(j verification.Job) Address {
	a := j.Address
	out := Address{ID: j.AddressID, Label: opt(a.Label), StreetNumber: opt(a.StreetNumber), StreetName: a.StreetName,
		Landmark: opt(a.Landmark), City: a.City, LGA: opt(a.LGA), State: a.State, Country: a.Country, Notes: opt(a.Notes),
		Status: j.Status, VerificationData: r.Data(j)}
	if l, ok := verification.ExpectedLocation(a); ok {
		out.ExpectedLocation = &l
	}
	return out
}

// Data is an address's verificationData: nil until the address has an
// outcome, a failed attempt or a review. A result held IN_REVIEW is not
// the lender's yet: only the attempts and the timeline show.
func (r Renderer) Data(j verification.Job) *VerificationData {
	if j.Status == verification.InReview {
		j.Result, j.Photos = nil, nil
	}
	if j.Result == nil && len(j.Attempts) == 0 && len(j.Reviews) == 0 && j.Status != verification.InReview {
		return nil
	}
	return r.data(j)
}

// Submitted is an address's verificationData with the result as the
// agent submitted it, held or not (operations' review), with photo URLs
// made by photoURL.
func (r Renderer) Submitted(j verification.Job, photoURL func(photoID string) string) *VerificationData {
	d := r.data(j)
	for i := range d.VerificationPhotos {
		d.VerificationPhotos[i].URL = photoURL(d.VerificationPhotos[i].ID)
	}
	return d
}

func (r Renderer) data(j verification.Job) *VerificationData {
	d := &VerificationData{PhotoCount: len(j.Photos), VerificationPhotos: make([]Photo, 0, len(j.Photos)),
		Attempts: Attempts(j), Timeline: make([]Transition, len(j.Timeline))}
	for i, t := range j.Timeline {
		d.Timeline[i] = Transition{Status: t.Status, At: envelope.Timestamp(t.At), By: t.By, Decision: t.Decision, Note: t.Note}
	}
	if n := len(j.Reviews); n > 0 {
		rv := j.Reviews[n-1]
		d.Review = &Review{Decision: rv.Decision, ReviewedBy: rv.ReviewedBy, ReviewedAt: envelope.Timestamp(rv.ReviewedAt), Note: rv.Note}
	}
	if j.Result != nil {
		d.Result = *j.Result
		d.VerifiedAt = ts(j.Result.VerifiedAt)
	}
	for _, p := range j.Photos {
		d.VerificationPhotos = append(d.VerificationPhotos, r.photo(j, p))
	}
	if v := j.Visit; v != nil && j.Result != nil {
		d.CheckIn = &Fix{Latitude: v.Latitude, Longitude: v.Longitude, AccuracyMeters: positive(v.Accuracy), At: envelope.Timestamp(v.At)}
	}
	return d
}

// photo renders one photo with where it was taken.
func (r Renderer) photo(j verification.Job, p verification.Photo) Photo {
	out := Photo{ID: p.ID, URL: r.PhotoURL(j.CustomerID, p.ID), Tag: p.Tag, CapturedAt: envelope.Timestamp(p.CapturedAt)}
	at, ok := p.Position()
	if !ok {
		return out
	}
	out.Latitude, out.Longitude = &at.Latitude, &at.Longitude
	if res := j.Result; res != nil && res.VerifiedLatitude != nil && res.VerifiedLongitude != nil {
		m := math.Round(verification.DistanceMeters(at, verification.Point{Latitude: *res.VerifiedLatitude, Longitude: *res.VerifiedLongitude}))
		out.DistanceFromCompletionMeters = &m
	}
	return out
}

func positive(v float64) *float64 {
	if v <= 0 {
		return nil
	}
	return &v
}

// PhotoURL is the stable gateway URL of a photo.
func (r Renderer) PhotoURL(customerID, photoID string) string {
	return r.BaseURL + "/api/v1/verification/" + url.PathEscape(customerID) + "/photos/" + url.PathEscape(photoID)
}

func opt(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func ts(t *time.Time) *string { return Timestamp(t) }

// Timestamp is t in the API's form, nil for nil.
func Timestamp(t *time.Time) *string {
	if t == nil {
		return nil
	}
	return envelope.Timestamp(*t)
}
