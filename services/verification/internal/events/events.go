// Package events holds the verification context's event payloads: the
// producer owns their types and their schema (api/events/
// verification-events.json); consumers read them into their own structs,
// held to these by the contract test in the stack module.
package events

import (
	"time"

	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/services/verification/internal/verification"
	"github.com/kycfield/kyc/services/verification/internal/verification/view"
)

// Event types, published on every address transition
// (verification.address.updated) and when a customer's verification ends
// (verification.completed: VERIFIED; verification.rejected: REJECTED).
const (
	TypeAddressUpdated = verification.EventAddressUpdated
	TypeCompleted      = verification.EventCompleted
	TypeRejected       = verification.EventRejected
)

// AddressUpdated is the data of verification.address.updated. Sequence
// increases with every transition of the address, so a consumer applies
// an update only if its sequence is higher than the last one it applied.
type AddressUpdated struct {
	CustomerID string    `json:"customerId"`
	AddressID  string    `json:"addressId"`
	Status     string    `json:"status"`
	Sequence   int64     `json:"sequence"`
	OccurredAt time.Time `json:"occurredAt"`
	// VerificationData is the address's verificationData as the status
	// endpoint shows it: null until it has an outcome or a failed attempt.
	VerificationData *view.VerificationData `json:"verificationData"`
	// OverallStatus and VerificationDate are the customer's after this
	// transition: this context is their one owner, and the customer
	// context shows what it announces.
	OverallStatus    string  `json:"overallStatus"`
	VerificationDate *string `json:"verificationDate"`
	// DueBy is what operations promise for a live address (its creation
	// plus the organization's SLA target then); absent in the sandbox.
	DueBy *string `json:"dueBy,omitempty"`
	// PreviousStatus, AgentID and NextVisitAt let the webhook context
	// tell the stages of a visit apart (an assignment from a visit that
	// found no access, both ASSIGNED) and say who and when, without
	// reading this context's database.
	PreviousStatus *string `json:"previousStatus"`
	AgentID        *string `json:"agentId"`
	NextVisitAt    *string `json:"nextVisitAt"`
}

// Publisher makes the event of each domain change.
type Publisher struct{ View view.Renderer }

// Of is the event published for a change, in the customer's organization
// and environment. The repository is handed Of and writes its result to
// the outbox in the change's own transaction.
func (p Publisher) Of(ch verification.Change) (event.Event, error) {
	c := ch.Case
	if ch.Job == nil {
		// verification.completed / verification.rejected: the full status.
		return event.New(ch.Type, c.OrgID, c.Env, p.View.Status(c))
	}
	j := ch.Job
	return event.New(ch.Type, c.OrgID, c.Env, AddressUpdated{CustomerID: c.CustomerID, AddressID: j.AddressID,
		Status: j.Status, Sequence: j.Sequence, OccurredAt: j.UpdatedAt, VerificationData: p.View.Data(*j),
		OverallStatus: c.Status, VerificationDate: view.Timestamp(c.VerificationDate),
		PreviousStatus: previousStatus(*j), AgentID: agentID(*j), NextVisitAt: view.Timestamp(nextVisit(*j)),
		DueBy: view.Timestamp(j.DueBy)})
}

// previousStatus is the status before the job's last transition, or nil
// for its first.
func previousStatus(j verification.Job) *string {
	if len(j.Timeline) < 2 {
		return nil
	}
	return &j.Timeline[len(j.Timeline)-2].Status
}

func agentID(j verification.Job) *string {
	if j.AgentID == "" {
		return nil
	}
	return &j.AgentID
}

// nextVisit is the re-visit date a visit without access just set: the
// job went back from IN_PROGRESS to ASSIGNED with a NO_ACCESS attempt.
// DueAt means other things at other times (the sandbox's next step), so
// it is only read here.
func nextVisit(j verification.Job) *time.Time {
	prev := previousStatus(j)
	if j.Status != verification.Assigned || prev == nil || *prev != verification.InProgress || len(j.Attempts) == 0 ||
		j.Attempts[len(j.Attempts)-1].Reason != verification.ReasonNoAccess {
		return nil
	}
	return j.DueAt
}
