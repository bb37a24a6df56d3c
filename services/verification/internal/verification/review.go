package verification

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/ids"
	"github.com/kycfield/kyc/pkg/wiretext"
)

// What a job IN_REVIEW holds: an agent's final result (RESULT), held by
// the organization's review policy, or an UNSAFE_AREA attempt, always
// held so that operations decide whether to send someone else or reject.
const (
	HoldResult     = "RESULT"
	HoldUnsafeArea = "UNSAFE_AREA"
)

// Hold is what a job IN_REVIEW waits with: the kind, the outcome the agent
// submitted (RESULT: VERIFIED or REJECTED; Result keeps the evidence as
// submitted), who made the visit and since when it waits.
type Hold struct {
	Kind    string    `json:"kind"`
	Outcome string    `json:"outcome,omitempty"`
	AgentID string    `json:"agentId"`
	Since   time.Time `json:"since"`
}

// A reviewer's decisions.
const (
	// DecisionApprove releases the result exactly as the agent submitted it.
	DecisionApprove = "APPROVE"
	// DecisionReject ends the address REJECTED with the reviewer's reason
	// and note, overturning a VERIFIED.
	DecisionReject = "REJECT"
	// DecisionRevisit sends the address back to ASSIGNED (the same agent
	// by default) with a note the agent sees; not an attempt.
	DecisionRevisit = "REVISIT"
)

// Decisions are every decision, in the order the console offers them.
var Decisions = []string{DecisionApprove, DecisionReject, DecisionRevisit}

// Review is one reviewer's decision on an address, kept with the job
// (every one, oldest first) and shown to the lender (the latest).
type Review struct {
	Decision   string    `json:"decision"`
	Kind       string    `json:"kind"`
	ReviewerID string    `json:"reviewerId"`
	ReviewedBy string    `json:"reviewedBy"`
	ReviewedAt time.Time `json:"reviewedAt"`
	Note       string    `json:"note,omitempty"`
	Reason     string    `json:"reason,omitempty"`
	AgentID    string    `json:"agentId,omitempty"`
}

// Reviewer is who decides: a staff member (id, name) or the operators'
// admin token.
type Reviewer struct{ ID, Name string }

// Holds reports whether a live result goes to review under policy:
// FLAGGED holds a result carrying any warning or critical flag, ALL every
// result, NONE (and any unknown policy) none. Sandbox results never are.
func Holds(policy, env string, r Result) bool {
	if env != EnvLive {
		return false
	}
	switch policy {
	case ReviewAll:
		return true
	case ReviewFlagged:
		return slices.ContainsFunc(r.Flags, func(code string) bool {
			s := FlagSeverity[code]
			return s == SeverityWarning || s == SeverityCritical
		})
	}
	return false
}

// hold puts the job IN_REVIEW with what it waits with.
func (j *Job) hold(kind, outcome string, at time.Time, by string) error {
	if err := j.move(InReview, at, by); err != nil {
		return err
	}
	j.Hold = &Hold{Kind: kind, Outcome: outcome, AgentID: by, Since: at}
	return nil
}

// ReviewNote is the note of the reviewer who sent the job back for a
// re-visit, while that re-visit is open ("" otherwise): the agent sees it.
func (j Job) ReviewNote() string {
	if len(j.Reviews) == 0 || (j.Status != Assigned && j.Status != InProgress) {
		return ""
	}
	if r := j.Reviews[len(j.Reviews)-1]; r.Decision == DecisionRevisit {
		return r.Note
	}
	return ""
}

// Decision is what a reviewer decides about a held address.
type Decision struct {
	Decision string
	// Reason is REJECT's rejection reason code.
	Reason string
	// Note is required for REJECT and REVISIT; plain text, at most
	// maxText characters.
	Note string
	// AgentID is REVISIT's agent ("" for the agent who made the visit).
	AgentID string
}

func (d Decision) check() error {
	var out []apperr.Detail
	if !slices.Contains(Decisions, d.Decision) {
		out = append(out, apperr.Detail{Field: "decision", Message: "must be APPROVE, REJECT or REVISIT"})
	}
	if d.Decision == DecisionReject {
		if r, ok := ReasonOf(d.Reason); !ok || r.Code == ReasonNoAccess {
			out = append(out, apperr.Detail{Field: "reason", Message: "must be a rejection reason code (not NO_ACCESS)"})
		}
	} else if d.Reason != "" {
		out = append(out, apperr.Detail{Field: "reason", Message: "is only for REJECT"})
	}
	switch {
	case d.Decision != DecisionApprove && strings.TrimSpace(d.Note) == "":
		out = append(out, apperr.Detail{Field: "note", Message: "is required for REJECT and REVISIT"})
	case utf8.RuneCountInString(d.Note) > maxText:
		out = append(out, apperr.Detail{Field: "note", Message: fmt.Sprintf("must be at most %d characters", maxText)})
	case !wiretext.Plain(d.Note):
		out = append(out, apperr.Detail{Field: "note", Message: wiretext.PlainMessage})
	}
	if d.AgentID != "" && (d.Decision != DecisionRevisit || !ids.Valid("agt", d.AgentID)) {
		out = append(out, apperr.Detail{Field: "agentId", Message: "is only for REVISIT, and must be an agent id"})
	}
	if len(out) > 0 {
		return apperr.Validation(out...)
	}
	return nil
}

// CodeNotInReview refuses a decision on an address that is not waiting
// for one (never held, or already decided by another reviewer).
const CodeNotInReview = "NOT_IN_REVIEW"

// ErrReviewNotFound is answered for addresses that are not held (and for
// unknown ones) where only held addresses are shown.
var ErrReviewNotFound = apperr.NotFound("Review")

// Decide applies a reviewer's decision to a held address, in one
// transaction with its events and the audit record. Of two reviewers
// deciding at once, the second finds the address no longer IN_REVIEW.
func (s *Service) Decide(ctx context.Context, addressID string, d Decision, by Reviewer) (Job, error) {
	if err := d.check(); err != nil {
		return Job{}, err
	}
	var out Job
	err := s.store.Atomic(ctx, func(tx Tx) error {
		err := s.onJob(ctx, tx, addressID, func(c *Case, j *Job) error {
			if j.Status != InReview || j.Hold == nil {
				return apperr.New(apperr.KindConflict, CodeNotInReview,
					fmt.Sprintf("The address is %s, not IN_REVIEW: there is nothing to decide", j.Status))
			}
			now := s.now().UTC()
			review := Review{Decision: d.Decision, Kind: j.Hold.Kind, ReviewerID: by.ID, ReviewedBy: by.Name, ReviewedAt: now,
				Note: d.Note, Reason: d.Reason}
			if err := s.apply(ctx, tx, j, d, &review, now); err != nil {
				return err
			}
			last := &j.Timeline[len(j.Timeline)-1]
			last.By, last.Decision, last.Note = "reviewed by "+by.Name, d.Decision, d.Note
			j.Reviews, j.Hold = append(j.Reviews, review), nil
			if err := s.changed(ctx, tx, c, j, nil, now); err != nil {
				return err
			}
			out = *j
			details := map[string]any{"decision": d.Decision, "customerId": c.CustomerID, "kind": review.Kind}
			for k, v := range map[string]string{"reason": d.Reason, "note": d.Note, "agentId": review.AgentID} {
				if v != "" {
					details[k] = v
				}
			}
			return tx.Audit(ctx, "review."+strings.ToLower(d.Decision), addressID, c.OrgID, details)
		})
		if apperr.IsCode(err, apperr.CodeNotFound) {
			return ErrReviewNotFound // an unknown address (an unknown agent is a validation error)
		}
		return err
	})
	return out, err
}

// apply moves the held job as the decision says.
func (s *Service) apply(ctx context.Context, tx Tx, j *Job, d Decision, review *Review, now time.Time) error {
	switch d.Decision {
	case DecisionApprove:
		if j.Hold.Kind != HoldResult || j.Result == nil {
			return apperr.Validation(apperr.Detail{Field: "decision",
				Message: "an UNSAFE_AREA attempt has no result to approve: REVISIT (to send an agent) or REJECT"})
		}
		return j.move(j.Hold.Outcome, now, review.ReviewerID)
	case DecisionReject:
		r := Result{Agent: &Agent{ID: j.Hold.AgentID}}
		if j.Result != nil {
			r = *j.Result
		}
		// An overturned VERIFIED keeps its evidence, not its verified address.
		r.VerifiedAddress, r.VerifiedAt, r.Reason = "", nil, d.Reason
		r.Diagnostics = fmt.Sprintf("Rejected (%s) by quality review at %s. Reviewer: %s", d.Reason, clock(now), d.Note)
		j.Result = &r
		return j.move(Rejected, now, review.ReviewerID)
	default:
		return s.revisit(ctx, tx, j, d, review, now)
	}
}

// revisit sends the job back to an active agent, due at once; the held
// result is dropped (its photos stay as evidence of the earlier visit).
func (s *Service) revisit(ctx context.Context, tx Tx, j *Job, d Decision, review *Review, now time.Time) error {
	id := d.AgentID
	if id == "" {
		id = j.Hold.AgentID
	}
	a, err := tx.Agent(ctx, id)
	if apperr.IsCode(err, apperr.CodeNotFound) {
		return apperr.Validation(apperr.Detail{Field: "agentId", Message: "is not an agent"})
	}
	if err != nil {
		return err
	}
	if !a.Active {
		return apperr.New(apperr.KindConflict, CodeAgentDisabled, "The agent is disabled; enable it first or choose another")
	}
	if err := j.move(Assigned, now, review.ReviewerID); err != nil {
		return err
	}
	j.AgentID, j.Result, j.DueAt, review.AgentID = a.ID, nil, &now, a.ID
	if j.Env == EnvTest {
		return tx.WakeSandbox(ctx) // the sandbox's agent goes again at once
	}
	return nil
}
