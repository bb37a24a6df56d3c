package verification

import (
	"fmt"
	"time"

	"github.com/kycfield/kyc/pkg/apperr"
)

// Address is an address as the customer context received it.
type Address struct {
	Label        string `json:"label,omitempty"`
	StreetNumber string `json:"streetNumber,omitempty"`
	StreetName   string `json:"streetName"`
	Landmark     string `json:"landmark,omitempty"`
	City         string `json:"city"`
	LGA          string `json:"lga,omitempty"`
	State        string `json:"state"`
	Country      string `json:"country"`
	Notes        string `json:"notes,omitempty"`
}

// Job is the verification of one address: the aggregate whose
// transitions the sandbox and the field agents make.
type Job struct {
	AddressID, CustomerID, OrgID, Env string
	Position                          int
	Address                           Address
	Status                            string
	// Sequence increases with every transition; consumers of the
	// address's events apply only higher ones.
	Sequence int64
	AgentID  string
	// DueAt is when the sandbox acts next, or when a re-visit is due.
	DueAt    *time.Time
	Attempts []Attempt
	Timeline []Transition
	// Visit is the check-in of the visit under way (or the last one).
	Visit *CheckInRecord
	// Result is the outcome and its evidence once final.
	Result *Result
	Photos []Photo
	// Hold is what the job waits with while IN_REVIEW (nil otherwise);
	// Reviews are the reviewers' decisions on it, oldest first.
	Hold        *Hold
	Reviews     []Review
	CreatedAt   time.Time
	UpdatedAt   time.Time
	CompletedAt *time.Time
}

// Transition is one step of a job's history.
type Transition struct {
	Status string    `json:"status"`
	At     time.Time `json:"at"`
	By     string    `json:"by"` // "system", "sandbox", an agent id, or "reviewed by <name>"
	// Decision and Note are a reviewer's, on the step a decision made.
	Decision string `json:"decision,omitempty"`
	Note     string `json:"note,omitempty"`
}

// Attempt is a visit that did not end the job (NO_ACCESS, UNSAFE_AREA).
type Attempt struct {
	At     time.Time `json:"at"`
	Reason string    `json:"reason"`
	Notes  string    `json:"notes,omitempty"`
	By     string    `json:"by"`
}

// Agent names who did the visit.
type Agent struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// Building describes what the agent saw.
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

// Neighbour is an optional confirmation by a neighbour.
type Neighbour struct {
	Confirmed bool   `json:"confirmed"`
	Notes     string `json:"notes,omitempty"`
}

// Result is the outcome of a final visit and its evidence.
type Result struct {
	VerifiedAddress           string     `json:"verifiedAddress,omitempty"`
	VerifiedAt                *time.Time `json:"verifiedAt,omitempty"`
	VerifiedLatitude          *float64   `json:"verifiedLatitude,omitempty"`
	VerifiedLongitude         *float64   `json:"verifiedLongitude,omitempty"`
	AgentNotes                string     `json:"agentNotes,omitempty"`
	Agent                     *Agent     `json:"agent,omitempty"`
	DistanceFromCheckInMeters *float64   `json:"distanceFromCheckInMeters,omitempty"`
	GPSAccuracyMeters         *float64   `json:"gpsAccuracyMeters,omitempty"`
	// DistanceFromExpectedMeters is how far the completion was from where
	// the address should be (ExpectedLocation).
	DistanceFromExpectedMeters *float64   `json:"distanceFromExpectedMeters,omitempty"`
	Building                   *Building  `json:"building,omitempty"`
	Resident                   *Resident  `json:"resident,omitempty"`
	Neighbour                  *Neighbour `json:"neighbour,omitempty"`
	Flags                      []string   `json:"flags,omitempty"`
	// FlagDetails explains each flag raised: severity and a sentence.
	FlagDetails []FlagDetail `json:"flagDetails,omitempty"`
	Reason      string       `json:"reason,omitempty"`
	Diagnostics string       `json:"diagnostics,omitempty"`
}

// Photo is a piece of photographic evidence.
type Photo struct {
	ID          string
	Tag         string
	ObjectKey   string
	ContentType string
	Size        int64
	// CapturedAt is when the photo was taken: the device's clock as the
	// app reported it (or, for the sandbox, the simulated time).
	CapturedAt time.Time
	// Device is where the app's own geolocation put the phone at capture
	// (browsers strip GPS from photos they hand to a page).
	Device *Point
	// Exif is what the file itself says, where its metadata survived.
	Exif *Exif
	// CreatedAt is when the server stored it; Key the agent's
	// Idempotency-Key for it.
	CreatedAt time.Time
	Key       string
	// Hash is the file's fingerprint (set on upload, for PHOTO_REUSED);
	// Reused says it matched a photo of another address when stored.
	Hash   *PhotoHash
	Reused bool
}

// Exif is the position and time a photo's own metadata records.
type Exif struct {
	Latitude  *float64   `json:"latitude,omitempty"`
	Longitude *float64   `json:"longitude,omitempty"`
	Taken     *time.Time `json:"taken,omitempty"`
}

// Photo tags.
var PhotoTags = []string{"building_front", "street_view", "landmark", "gate", "house_number", "resident", "other"}

// ErrNotFound is answered for unknown, deleted and other organizations'
// customers alike.
var ErrNotFound = apperr.NotFound("Customer")

// move makes one transition, recording it.
func (j *Job) move(to string, at time.Time, by string) error {
	if !CanMove(j.Status, to) {
		return j.refuse(to)
	}
	j.Status, j.UpdatedAt = to, at
	j.Sequence++
	j.Timeline = append(j.Timeline, Transition{Status: to, At: at, By: by})
	if IsFinal(to) {
		j.CompletedAt, j.DueAt = &at, nil
	}
	return nil
}

// refuse is the error for a move the job's state does not allow.
func (j *Job) refuse(to string) error {
	return apperr.New(apperr.KindConflict, CodeInvalidTransition,
		fmt.Sprintf("An address in status %s cannot move to %s", j.Status, to))
}

// CodeInvalidTransition refuses a move the job's state does not allow.
const CodeInvalidTransition = "INVALID_TRANSITION"

// Assign gives the job to an agent.
func (j *Job) Assign(agentID string, at time.Time, by string) error {
	if err := j.move(Assigned, at, by); err != nil {
		return err
	}
	j.AgentID = agentID
	return nil
}

// CheckIn starts the visit on site.
func (j *Job) CheckIn(at time.Time, by string) error { return j.move(InProgress, at, by) }

// Complete ends the visit with a final outcome (VERIFIED or REJECTED).
func (j *Job) Complete(outcome string, r Result, photos []Photo, at time.Time, by string) error {
	if outcome != Verified && outcome != Rejected {
		return apperr.Validation(apperr.Detail{Field: "outcome", Message: "must be VERIFIED or REJECTED"})
	}
	if err := j.move(outcome, at, by); err != nil {
		return err
	}
	j.Result, j.Photos = &r, append(j.Photos, photos...)
	return nil
}

// NoAccess records a visit that could not reach the customer: an attempt,
// and the job back to ASSIGNED with a re-visit due at revisit, or REJECTED
// (NO_ACCESS) once it is the MaxAttempts-th.
func (j *Job) NoAccess(notes string, revisit, at time.Time, by string) error {
	if j.Status != InProgress {
		// Only a visit on site can find no access. Not j.move(Assigned):
		// PENDING may move to ASSIGNED, and would be assigned silently.
		return j.refuse(Assigned)
	}
	j.Attempts = append(j.Attempts, Attempt{At: at, Reason: ReasonNoAccess, Notes: notes, By: by})
	// Only visits without access count toward the limit (not UNSAFE_AREA).
	n := 0
	for _, a := range j.Attempts {
		if a.Reason == ReasonNoAccess {
			n++
		}
	}
	if n >= MaxAttempts {
		return j.Complete(Rejected, Result{Reason: ReasonNoAccess, AgentNotes: notes,
			Diagnostics: fmt.Sprintf("No access on %d visits", n)}, nil, at, by)
	}
	if err := j.move(Assigned, at, by); err != nil {
		return err
	}
	j.DueAt = &revisit
	return nil
}

// Cancel ends an open job because its customer was deleted; a final job
// keeps its outcome (reports true when it moved).
func (j *Job) Cancel(at time.Time) bool {
	if IsFinal(j.Status) {
		return false
	}
	_ = j.move(Cancelled, at, "system")
	return true
}
