// Package verification is the verification context's domain: the job of
// verifying one address, its states and transitions, attempts and reason
// codes, the case (the customer as this context sees it) whose status
// follows its jobs, and the use cases that move them, for the sandbox's
// simulation and, later, the field agents.
package verification

// Address (job) statuses. PENDING waits for an agent; ASSIGNED has one;
// IN_PROGRESS: the agent checked in on site; IN_REVIEW: operations
// hold the agent's result (or an UNSAFE_AREA attempt) before release
// (review.go); VERIFIED and REJECTED are final; CANCELLED: the customer
// was deleted while the job was open.
const (
	Pending    = "PENDING"
	Assigned   = "ASSIGNED"
	InProgress = "IN_PROGRESS"
	InReview   = "IN_REVIEW"
	Verified   = "VERIFIED"
	Rejected   = "REJECTED"
	Cancelled  = "CANCELLED"
)

// moves lists the transitions a job may make. A visit without access
// returns an IN_PROGRESS job to ASSIGNED with a re-visit due; a held
// result waits IN_REVIEW for a reviewer's decision: released (VERIFIED or
// REJECTED), overturned (REJECTED) or sent back for a re-visit
// (ASSIGNED).
var moves = map[string][]string{
	Pending:    {Assigned, Cancelled},
	Assigned:   {InProgress, Pending, Cancelled},
	InProgress: {Verified, Rejected, Assigned, InReview, Cancelled},
	InReview:   {Verified, Rejected, Assigned, Cancelled},
}

// CanMove reports whether a job may go from one status to another.
func CanMove(from, to string) bool {
	for _, s := range moves[from] {
		if s == to {
			return true
		}
	}
	return false
}

// IsFinal reports whether an address status is an end state.
func IsFinal(status string) bool {
	return status == Verified || status == Rejected || status == Cancelled
}

// OverallStatus derives a customer's status from its addresses' statuses,
// by the same rule as the customer context's read model (both are tested
// against every row of api/events/overall-status.json): PENDING
// while every address is PENDING (or there is none); IN_PROGRESS while any
// address is not final (IN_REVIEW included); VERIFIED when all are VERIFIED; REJECTED when all
// are final and one is REJECTED. Cancelled addresses do not count.
func OverallStatus(statuses []string) string {
	var n, pending, final, rejected int
	for _, s := range statuses {
		switch s {
		case Cancelled:
			continue
		case Pending, "":
			pending++
		case Verified:
			final++
		case Rejected:
			final++
			rejected++
		}
		n++
	}
	switch {
	case n == 0 || pending == n:
		return Pending
	case final < n:
		return InProgress
	case rejected > 0:
		return Rejected
	}
	return Verified
}

// IsCaseFinal reports whether a customer (overall) status is an end state.
func IsCaseFinal(status string) bool { return status == Verified || status == Rejected }

// Reason explains a rejection or a failed attempt.
type Reason struct {
	Code string
	// Attempt: the visit is recorded as an attempt, and the address is
	// visited again rather than rejected (NO_ACCESS: after MaxAttempts
	// failed attempts it is rejected).
	Attempt     bool
	Description string
}

// MaxAttempts is how many visits without access reject an address.
const MaxAttempts = 3

// Reason codes.
const (
	ReasonAddressNotFound = "ADDRESS_NOT_FOUND"
	ReasonWrongAddress    = "WRONG_ADDRESS"
	ReasonInvalidAddress  = "INVALID_ADDRESS"
	ReasonNotKnown        = "CUSTOMER_NOT_KNOWN_AT_ADDRESS"
	ReasonMoved           = "CUSTOMER_MOVED"
	ReasonNoAccess        = "NO_ACCESS"
	ReasonUnsafeArea      = "UNSAFE_AREA"
	ReasonOther           = "OTHER"
)

// Reasons are every reason code, documented in the OpenAPI file.
var Reasons = []Reason{
	{ReasonAddressNotFound, false, "The agent could not find the address: no such street or building."},
	{ReasonWrongAddress, false, "The address exists, but the customer is not there and was never known there."},
	{ReasonInvalidAddress, false, "The address is incomplete or ambiguous: it cannot be located as written."},
	{ReasonNotKnown, false, "The address exists and was reached, but residents and neighbours do not know the customer."},
	{ReasonMoved, false, "The customer lived at the address but has moved away."},
	{ReasonNoAccess, true, "No access on the visit (gate locked, nobody home): recorded as an attempt and visited again the next working day; rejected after 3 attempts."},
	{ReasonUnsafeArea, true, "The agent judged the area unsafe to enter: recorded as an attempt; operations decide how to proceed."},
	{ReasonOther, false, "Anything else; the agent's notes say what."},
}

// ReasonOf returns the reason with code.
func ReasonOf(code string) (Reason, bool) {
	for _, r := range Reasons {
		if r.Code == code {
			return r, true
		}
	}
	return Reason{}, false
}
