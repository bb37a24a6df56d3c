package events

import (
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/kycfield/kyc/services/webhook/internal/webhook"
)

// Address statuses the stage events are derived from.
const (
	statusPending    = "PENDING"
	statusAssigned   = "ASSIGNED"
	statusInProgress = "IN_PROGRESS"
	statusVerified   = "VERIFIED"
	statusRejected   = "REJECTED"
	// statusInReview is a result held for the platform's quality review:
	// not the lender's to see until it is released as VERIFIED or
	// REJECTED, so neither a webhook nor the events API shows it.
	statusInReview = "IN_REVIEW"
)

// stageNamespace names the stage event ids: a stage event's id is a
// UUIDv5 of the id of the event it was derived from and its type, so a
// replayed source event (Kafka redelivers, an operator replays a topic)
// gives the same id, and the same webhook-id, again.
var stageNamespace = uuid.MustParse("5f1e6c1a-3b0d-4c55-9a43-6e2f0d4b7a10")

// StageID is the id of the stage event of type typ derived from the
// event sourceID.
func StageID(sourceID, typ string) string {
	return uuid.NewSHA1(stageNamespace, []byte(sourceID+"/"+typ)).String()
}

// StageData is what every address stage event carries: which address,
// its status after the step, the step's sequence (per address, as in
// verification.address.updated) and time, and the agent.
type StageData struct {
	CustomerID string `json:"customerId"`
	AddressID  string `json:"addressId"`
	Status     string `json:"status"`
	Sequence   int64  `json:"sequence"`
	OccurredAt string `json:"occurredAt"`
	// AgentID is the field agent (agt_sandbox in the sandbox); null when
	// the producer did not say (events older than the field).
	AgentID *string `json:"agentId"`
}

// AttemptedData is the data of address.attempted: a visit that could not
// reach the customer. NextVisitAt is the re-visit date after NO_ACCESS;
// null after UNSAFE_AREA, where operations decide.
type AttemptedData struct {
	StageData
	Reason      string  `json:"reason"`
	Attempt     int     `json:"attempt"`
	NextVisitAt *string `json:"nextVisitAt"`
}

// VerifiedData is the data of address.verified; Flags are the evidence
// flags raised (details in verification.address.updated and the status
// endpoint).
type VerifiedData struct {
	StageData
	Flags []string `json:"flags"`
}

// RejectedData is the data of address.rejected.
type RejectedData struct {
	StageData
	Reason string `json:"reason"`
}

// ReportReadyData is the data of report.ready: a version of the
// customer's PDF report is stored and downloadable at ReportURL (always
// the newest version).
type ReportReadyData struct {
	CustomerID  string `json:"customerId"`
	ReportID    string `json:"reportId"`
	Version     int    `json:"version"`
	Status      string `json:"status"`
	ReportURL   string `json:"reportUrl"`
	GeneratedAt string `json:"generatedAt"`
}

// outcome is the part of an address's verificationData a stage event
// shows.
type outcome struct {
	Reason   string   `json:"reason"`
	Flags    []string `json:"flags"`
	Attempts []struct {
		Reason string `json:"reason"`
	} `json:"attempts"`
	Timeline []struct {
		Status string `json:"status"`
	} `json:"timeline"`
}

// previous is the address's status before this transition: the
// producer's previousStatus, or for an event published before it had
// that field, the timeline's entry before the last (null before the
// address has an outcome or an attempt, when ASSIGNED can only follow
// PENDING).
func previous(d addressUpdated, o outcome) string {
	if d.PreviousStatus != nil {
		return *d.PreviousStatus
	}
	if n := len(o.Timeline); n >= 2 {
		return o.Timeline[n-2].Status
	}
	return ""
}

// stageOf is the stage event an address transition makes, if any: an
// assignment, a check-in, an attempt, a final outcome. A return to
// PENDING (an agent released), a cancellation and a result held for
// review make none.
func stageOf(d addressUpdated) (typ string, data any, ok bool) {
	base := StageData{CustomerID: d.CustomerID, AddressID: d.AddressID, Status: d.Status, Sequence: d.Sequence,
		OccurredAt: stamp(d.OccurredAt), AgentID: d.AgentID}
	var o outcome
	if len(d.VerificationData) > 0 {
		_ = json.Unmarshal(d.VerificationData, &o) // null or a shape without these: zero values
	}
	switch d.Status {
	case statusAssigned:
		if previous(d, o) != statusInProgress {
			return webhook.TypeAddressAssigned, base, true
		}
		a := AttemptedData{StageData: base, Reason: "NO_ACCESS", Attempt: len(o.Attempts), NextVisitAt: stampPtr(d.NextVisitAt)}
		if n := len(o.Attempts); n > 0 {
			a.Reason = o.Attempts[n-1].Reason
		}
		return webhook.TypeAddressAttempted, a, true
	case statusInProgress:
		return webhook.TypeAddressCheckedIn, base, true
	case statusVerified:
		if o.Flags == nil {
			o.Flags = []string{}
		}
		return webhook.TypeAddressVerified, VerifiedData{StageData: base, Flags: o.Flags}, true
	case statusRejected:
		return webhook.TypeAddressRejected, RejectedData{StageData: base, Reason: o.Reason}, true
	}
	return "", nil, false
}

func stampPtr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := stamp(*t)
	return &s
}
