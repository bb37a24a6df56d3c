package verification

import (
	"context"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/wiretext"
)

// Lagos is West Africa Time (UTC+1, no daylight saving), where the
// agents and their phones are.
var Lagos = time.FixedZone("WAT", 3600)

// NextWorkingDay is 09:00 in Lagos on the first Monday-to-Friday after at.
func NextWorkingDay(at time.Time) time.Time {
	d := at.In(Lagos)
	next := time.Date(d.Year(), d.Month(), d.Day()+1, 9, 0, 0, 0, Lagos)
	for next.Weekday() == time.Saturday || next.Weekday() == time.Sunday {
		next = next.AddDate(0, 0, 1)
	}
	return next.UTC()
}

// Outcome is how an agent ends a visit.
type Outcome struct {
	// Outcome is VERIFIED, REJECTED, or NO_ACCESS (an attempt).
	Outcome         string
	Reason          string
	VerifiedAddress string
	At              Point
	Notes           string
	Resident        *Resident
	Building        *Building
	Neighbour       *Neighbour
	// Trail is the positions the app sampled during the visit.
	Trail []TrailSampleInput
}

// Outcomes an agent may report.
const OutcomeNoAccess = "NO_ACCESS"

// maxText bounds an agent's free text.
const maxText = 2000

// MinPhotos is how many photos of the visit a VERIFIED outcome needs.
const MinPhotos = 2

func (o Outcome) check() error {
	d := o.outcomeProblems()
	for field, v := range o.texts() {
		switch {
		case utf8.RuneCountInString(v) > maxText:
			d = append(d, apperr.Detail{Field: field, Message: fmt.Sprintf("must be at most %d characters", maxText)})
		case !wiretext.Plain(v):
			d = append(d, apperr.Detail{Field: field, Message: wiretext.PlainMessage})
		}
	}
	if o.Resident != nil && o.Resident.YearsAtAddress != nil && (*o.Resident.YearsAtAddress < 0 || *o.Resident.YearsAtAddress > 120) {
		d = append(d, apperr.Detail{Field: "resident.yearsAtAddress", Message: "must be 0-120"})
	}
	if err := checkPoint(o.At, ""); err != nil {
		e, _ := apperr.As(err)
		d = append(d, e.Details...)
	}
	if len(d) > 0 {
		return apperr.Validation(d...)
	}
	return nil
}

// texts are the outcome's free-text fields by name: what the agent typed,
// which lenders read in the API, webhooks and the report.
func (o Outcome) texts() map[string]string {
	t := map[string]string{"verifiedAddress": o.VerifiedAddress, "notes": o.Notes}
	if o.Resident != nil {
		t["resident.name"], t["resident.relationship"] = o.Resident.Name, o.Resident.Relationship
	}
	if o.Building != nil {
		t["building.type"], t["building.colour"] = o.Building.Type, o.Building.Colour
	}
	if o.Neighbour != nil {
		t["neighbour.notes"] = o.Neighbour.Notes
	}
	return t
}

// outcomeProblems checks the outcome and what goes with it.
func (o Outcome) outcomeProblems() []apperr.Detail {
	var d []apperr.Detail
	switch o.Outcome {
	case Verified:
		if o.VerifiedAddress == "" {
			d = append(d, apperr.Detail{Field: "verifiedAddress", Message: "is required for VERIFIED"})
		}
		if o.Reason != "" {
			d = append(d, apperr.Detail{Field: "reason", Message: "is only for REJECTED and NO_ACCESS"})
		}
	case Rejected:
		if r, ok := ReasonOf(o.Reason); !ok || r.Code == ReasonNoAccess {
			d = append(d, apperr.Detail{Field: "reason", Message: "must be a rejection reason code (NO_ACCESS is its own outcome)"})
		}
		if o.Reason == ReasonOther && o.Notes == "" {
			d = append(d, apperr.Detail{Field: "notes", Message: "are required with reason OTHER"})
		}
	case OutcomeNoAccess:
	default:
		d = append(d, apperr.Detail{Field: "outcome", Message: "must be VERIFIED, REJECTED or NO_ACCESS"})
	}
	return d
}

// Complete ends the agent's visit under way: VERIFIED (with at least
// MinPhotos photos taken since check-in) or REJECTED with a reason end
// the job, or wait IN_REVIEW when the organization's review policy holds
// them (review.go); NO_ACCESS and UNSAFE_AREA are attempts (NO_ACCESS
// sends the job back to ASSIGNED with a re-visit the next working day,
// and rejects it on the third; UNSAFE_AREA waits IN_REVIEW for
// operations to decide). The evidence is checked and flagged, never
// refused.
func (s *Service) Complete(ctx context.Context, agent FieldAgent, addressID string, o Outcome, idem Idem) (Task, error) {
	err := o.check()
	samples, trailProblems := parseTrail(o.Trail, s.now().UTC())
	if len(trailProblems) > 0 {
		var d []apperr.Detail
		if e, ok := apperr.As(err); ok {
			d = e.Details
		}
		return Task{}, apperr.Validation(append(d, trailProblems...)...)
	}
	if err != nil {
		return Task{}, err
	}
	return s.agentCall(ctx, agent, addressID, idem, func(tx Tx, c *Case, j *Job, now time.Time) error {
		if j.Status != InProgress {
			return apperr.New(apperr.KindConflict, CodeInvalidTransition, "Check in before completing the visit")
		}
		_, elsewhere, err := tx.LastFixes(ctx, agent.ID, j.AddressID)
		if err != nil {
			return err
		}
		org, err := tx.OrgSettings(ctx, j.OrgID)
		if err != nil {
			return err
		}
		if err := endVisit(j, agent, o, now, elsewhere, org.ReviewPolicy); err != nil {
			return err
		}
		if err := tx.RecordFix(ctx, Fix{AgentID: agent.ID, AddressID: j.AddressID, Kind: FixCompletion, Point: o.At, At: now}); err != nil {
			return err
		}
		if err := tx.InsertTrail(ctx, trailOf(*j, agent, o, samples, now)); err != nil {
			return err
		}
		return s.changed(ctx, tx, c, j, nil, now)
	})
}

// endVisit applies the agent's outcome to the job under way; policy is
// the organization's review policy (review.go). A live UNSAFE_AREA
// attempt always waits for operations IN_REVIEW.
func endVisit(j *Job, agent FieldAgent, o Outcome, now time.Time, elsewhere *Fix, policy string) error {
	switch {
	case o.Outcome == OutcomeNoAccess:
		return noAccess(j, agent, o, now, elsewhere)
	case o.Outcome == Rejected && o.Reason == ReasonUnsafeArea:
		j.Attempts = append(j.Attempts, Attempt{At: now, Reason: ReasonUnsafeArea, Notes: o.Notes, By: agent.ID})
		if j.Env == EnvLive {
			return j.hold(HoldUnsafeArea, "", now, agent.ID)
		}
		return j.move(Assigned, now, agent.ID)
	default:
		return finish(j, agent, o, now, elsewhere, policy)
	}
}

// noAccess records a visit that could not get in: a re-visit, or on the
// last attempt a rejection with who and where.
func noAccess(j *Job, agent FieldAgent, o Outcome, now time.Time, elsewhere *Fix) error {
	if err := j.NoAccess(o.Notes, NextWorkingDay(now), now, agent.ID); err != nil {
		return err
	}
	if j.Result != nil {
		lat, lng := o.At.Latitude, o.At.Longitude
		j.Result.Agent, j.Result.VerifiedLatitude, j.Result.VerifiedLongitude = &Agent{ID: agent.ID, Name: agent.Name}, &lat, &lng
		// A visit that found no access may be short: not SHORT_VISIT.
		evidenceFlags(*j, o.At, nil, now, visitEvidence{elsewhere: elsewhere}, j.Result)
	}
	return nil
}

// finish ends the job VERIFIED or REJECTED, with the visit's evidence
// checked and flagged.
func finish(j *Job, agent FieldAgent, o Outcome, now time.Time, elsewhere *Fix, policy string) error {
	visit := visitPhotos(*j)
	if o.Outcome == Verified && len(visit) < MinPhotos {
		return apperr.Validation(apperr.Detail{Field: "photos",
			Message: fmt.Sprintf("VERIFIED needs at least %d photos taken on this visit; %d uploaded", MinPhotos, len(visit))})
	}
	r := Result{Agent: &Agent{ID: agent.ID, Name: agent.Name}, AgentNotes: o.Notes, Resident: o.Resident,
		Building: o.Building, Neighbour: o.Neighbour, Reason: o.Reason}
	lat, lng := o.At.Latitude, o.At.Longitude
	r.VerifiedLatitude, r.VerifiedLongitude = &lat, &lng
	if o.Outcome == Verified {
		r.VerifiedAddress, r.VerifiedAt = o.VerifiedAddress, &now
	} else {
		r.Diagnostics = diagnostics(*j, o, now)
	}
	evidenceFlags(*j, o.At, visit, now, visitEvidence{elsewhere: elsewhere, timedVisit: true}, &r)
	if Holds(policy, j.Env, r) {
		// Kept exactly as submitted: an APPROVE releases this result.
		if err := j.hold(HoldResult, o.Outcome, now, agent.ID); err != nil {
			return err
		}
		j.Result = &r
		return nil
	}
	return j.Complete(o.Outcome, r, nil, now, agent.ID)
}

// visitPhotos are the photos taken since the visit's check-in.
func visitPhotos(j Job) []Photo {
	var out []Photo
	for _, p := range j.Photos {
		if j.Visit != nil && !p.CreatedAt.Before(j.Visit.At) {
			out = append(out, p)
		}
	}
	return out
}

// diagnostics explains a rejection: the agent's own words and the visits.
func diagnostics(j Job, o Outcome, now time.Time) string {
	s := fmt.Sprintf("Rejected (%s) on visit %d at %s", o.Reason, len(j.Attempts)+1, now.In(Lagos).Format("2006-01-02 15:04 WAT"))
	for i, a := range j.Attempts {
		s += fmt.Sprintf("; attempt %d %s at %s", i+1, a.Reason, a.At.In(Lagos).Format("2006-01-02 15:04 WAT"))
	}
	if o.Notes != "" {
		s += ". Agent: " + o.Notes
	}
	return s
}
