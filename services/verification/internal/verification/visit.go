package verification

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/kycfield/kyc/pkg/apperr"
)

// Point is a GPS fix: accuracy is the radius in metres (a browser's
// coords.accuracy is a 95 % radius).
type Point struct {
	Latitude  float64 `json:"latitude"`
	Longitude float64 `json:"longitude"`
	Accuracy  float64 `json:"accuracy"`
}

// CheckInRecord is where and when the agent started the visit.
type CheckInRecord struct {
	Point
	At time.Time `json:"at"`
}

// Task is an open job as its agent sees it.
type Task struct {
	Job
	CustomerName, CustomerPhone string
	// PhotoCount counts the job's photos (lists do not load them).
	PhotoCount int
}

// taskOf is a job with what its agent needs of the case.
func taskOf(c Case, j Job) Task {
	return Task{Job: j, CustomerName: c.FirstName + " " + c.LastName, CustomerPhone: c.Phone, PhotoCount: len(j.Photos)}
}

// ErrTaskNotFound is answered for another agent's task too.
var ErrTaskNotFound = apperr.NotFound("Task")

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

// offer assigns a live PENDING job to the active agent covering its state
// with an LGA match first, then the fewest open tasks; without one it
// stays PENDING until an agent becomes available.
func (s *Service) offer(ctx context.Context, tx Tx, c *Case, j *Job, agents []FieldAgent, now time.Time) error {
	if j.Env != EnvLive || j.Status != Pending {
		return nil
	}
	best := -1
	bestLGA := false
	for i, a := range agents {
		inState, inLGA := a.Covers(j.Address.State, j.Address.LGA)
		if !a.Active || !inState {
			continue
		}
		if best < 0 || (inLGA && !bestLGA) || (inLGA == bestLGA && a.OpenTasks < agents[best].OpenTasks) {
			best, bestLGA = i, inLGA
		}
	}
	if best < 0 {
		return nil
	}
	if err := j.Assign(agents[best].ID, now, "system"); err != nil {
		return err
	}
	agents[best].OpenTasks++
	return s.changed(ctx, tx, c, j, nil, now)
}

// assignWaiting offers every waiting live job to the agents.
func (s *Service) assignWaiting(ctx context.Context, tx Tx, now time.Time) error {
	agents, err := tx.ActiveAgents(ctx)
	if err != nil || len(agents) == 0 {
		return err
	}
	waiting, err := tx.WaitingLive(ctx, 500)
	if err != nil {
		return err
	}
	for _, w := range waiting {
		c, err := tx.Case(ctx, w.CustomerID)
		if err != nil {
			return err
		}
		for i := range c.Jobs {
			if c.Jobs[i].AddressID == w.AddressID {
				if err := s.offer(ctx, tx, &c, &c.Jobs[i], agents, now); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// release returns a disabled agent's not-yet-started tasks to the queue.
func (s *Service) release(ctx context.Context, tx Tx, agentID string, now time.Time) error {
	tasks, err := tx.AgentJobs(ctx, agentID)
	if err != nil {
		return err
	}
	for _, t := range tasks {
		if t.Status != Assigned {
			continue // a visit under way stays with its agent until operations reassign it
		}
		c, err := tx.Case(ctx, t.CustomerID)
		if err != nil {
			return err
		}
		for i := range c.Jobs {
			j := &c.Jobs[i]
			if j.AddressID == t.AddressID {
				if err := j.move(Pending, now, "system"); err != nil {
					return err
				}
				j.AgentID = ""
				if err := s.changed(ctx, tx, &c, j, nil, now); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// Reassign gives an open job that has not started to another agent
// (operations).
func (s *Service) Reassign(ctx context.Context, addressID, agentID string) (Task, error) {
	var out Task
	err := s.store.Atomic(ctx, func(tx Tx) error {
		a, err := tx.Agent(ctx, agentID)
		if err != nil {
			return err
		}
		if !a.Active {
			return apperr.New(apperr.KindConflict, CodeAgentDisabled, "The agent is disabled; enable it first")
		}
		now := s.now().UTC()
		return s.onJob(ctx, tx, addressID, func(c *Case, j *Job) error {
			if j.Env != EnvLive {
				return apperr.New(apperr.KindConflict, CodeInvalidTransition, "Sandbox addresses are verified by the simulation, not by agents")
			}
			if j.Status != Pending && j.Status != Assigned {
				return j.refuse(Assigned) // a visit under way or a final address keeps its agent
			}
			if j.Status == Assigned {
				if err := j.move(Pending, now, "operations"); err != nil {
					return err
				}
				j.AgentID = ""
				if err := s.changed(ctx, tx, c, j, nil, now); err != nil {
					return err
				}
			}
			if err := j.Assign(a.ID, now, "operations"); err != nil {
				return err
			}
			out = taskOf(*c, *j)
			return s.changed(ctx, tx, c, j, nil, now)
		})
	})
	return out, err
}

// onJob runs fn on a job and its case, locked.
func (s *Service) onJob(ctx context.Context, tx Tx, addressID string, fn func(c *Case, j *Job) error) error {
	customerID, err := tx.CustomerOf(ctx, addressID)
	if err != nil {
		return err
	}
	c, err := tx.Case(ctx, customerID)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(c.Jobs, func(j Job) bool { return j.AddressID == addressID })
	if i < 0 || c.DeletedAt != nil {
		return ErrTaskNotFound
	}
	return fn(&c, &c.Jobs[i])
}

// Tasks lists an agent's open tasks, due re-visits first.
func (s *Service) Tasks(ctx context.Context, agent FieldAgent) ([]Task, error) {
	return s.store.Tasks(ctx, agent.ID)
}

// Idem identifies a retried agent call: the same key with the same
// request does nothing twice; with another request it is refused.
type Idem struct{ Key, Fingerprint string }

// CodeIdempotencyKeyReused refuses a key sent again with another request.
const CodeIdempotencyKeyReused = "IDEMPOTENCY_KEY_REUSED"

// agentCall runs fn on the agent's own task in one transaction, once per
// idempotency key: a retry of a call that succeeded returns the task as it
// is now, doing nothing again.
func (s *Service) agentCall(ctx context.Context, agent FieldAgent, addressID string, idem Idem, fn func(tx Tx, c *Case, j *Job, now time.Time) error) (Task, error) {
	var out Task
	err := s.store.Atomic(ctx, func(tx Tx) error {
		fp, seen, err := tx.Recall(ctx, agent.ID, idem.Key)
		if err != nil {
			return err
		}
		if seen && fp != idem.Fingerprint {
			return apperr.New(apperr.KindUnprocessable, CodeIdempotencyKeyReused, "This Idempotency-Key was used with a different request")
		}
		return s.onJob(ctx, tx, addressID, func(c *Case, j *Job) error {
			if j.AgentID != agent.ID {
				return ErrTaskNotFound
			}
			if !seen {
				if err := fn(tx, c, j, s.now().UTC()); err != nil {
					return err
				}
				if err := tx.Remember(ctx, agent.ID, idem.Key, idem.Fingerprint); err != nil {
					return err
				}
			}
			out = taskOf(*c, *j)
			return nil
		})
	})
	return out, err
}

// CheckIn starts a visit at a GPS point.
func (s *Service) CheckIn(ctx context.Context, agent FieldAgent, addressID string, at Point, idem Idem) (Task, error) {
	if err := checkPoint(at, ""); err != nil {
		return Task{}, err
	}
	return s.agentCall(ctx, agent, addressID, idem, func(tx Tx, c *Case, j *Job, now time.Time) error {
		if err := j.CheckIn(now, agent.ID); err != nil {
			return err
		}
		j.Visit = &CheckInRecord{Point: at, At: now}
		return s.changed(ctx, tx, c, j, nil, now)
	})
}

func checkPoint(p Point, prefix string) error {
	var d []apperr.Detail
	if p.Latitude < -90 || p.Latitude > 90 || (p.Latitude == 0 && p.Longitude == 0) {
		d = append(d, apperr.Detail{Field: prefix + "latitude", Message: "must be a latitude in degrees (-90 to 90)"})
	}
	if p.Longitude < -180 || p.Longitude > 180 {
		d = append(d, apperr.Detail{Field: prefix + "longitude", Message: "must be a longitude in degrees (-180 to 180)"})
	}
	if p.Accuracy < 0 || p.Accuracy > 100_000 {
		d = append(d, apperr.Detail{Field: prefix + "accuracy", Message: "must be the fix's accuracy radius in metres"})
	}
	if len(d) > 0 {
		return apperr.Validation(d...)
	}
	return nil
}

// distance is the great-circle distance between two points in metres.
func distance(aLat, aLng, bLat, bLng float64) float64 {
	const r = 6_371_000
	rad := math.Pi / 180
	dLat, dLng := (bLat-aLat)*rad, (bLng-aLng)*rad
	h := math.Sin(dLat/2)*math.Sin(dLat/2) + math.Cos(aLat*rad)*math.Cos(bLat*rad)*math.Sin(dLng/2)*math.Sin(dLng/2)
	return 2 * r * math.Asin(math.Sqrt(h))
}

// Evidence thresholds; crossing one flags the result, never blocks it.
const (
	maxPhotoDistance   = 250.0 // metres between a photo's EXIF GPS and the completion point
	maxCheckInDistance = 250.0 // metres between check-in and completion
	minAccuracy        = 50.0  // metres; a worse fix is flagged
	visitSlack         = 10 * time.Minute
	// maxStateDistance approximates a state's bounds by a radius around its
	// centre (the largest states span about 300 km).
	maxStateDistance = 200_000.0
)

// Flags raised on completion.
const (
	FlagCheckInFar         = "CHECKIN_FAR_FROM_COMPLETION"
	FlagPhotoFar           = "PHOTO_GPS_FAR_FROM_COMPLETION" // EXIF GPS, else the phone's at capture
	FlagPhotoTime          = "PHOTO_TIME_OUTSIDE_VISIT"
	FlagLowAccuracy        = "LOW_GPS_ACCURACY"
	FlagOutsideState       = "OUTSIDE_ADDRESS_STATE"
	FlagPhotoWithoutGPS    = "PHOTO_WITHOUT_GPS"
	FlagCheckInLowAccuracy = "CHECKIN_LOW_GPS_ACCURACY"
)

// evidenceFlags checks a visit's evidence and fills the distances.
func evidenceFlags(j Job, at Point, photos []Photo, now time.Time, r *Result) {
	var flags []string
	add := func(f string) {
		if !slices.Contains(flags, f) {
			flags = append(flags, f)
		}
	}
	if j.Visit != nil {
		d := math.Round(distance(j.Visit.Latitude, j.Visit.Longitude, at.Latitude, at.Longitude))
		r.DistanceFromCheckInMeters = &d
		if d > maxCheckInDistance {
			add(FlagCheckInFar)
		}
		if j.Visit.Accuracy > minAccuracy {
			add(FlagCheckInLowAccuracy)
		}
	}
	acc := at.Accuracy
	r.GPSAccuracyMeters = &acc
	if acc > minAccuracy {
		add(FlagLowAccuracy)
	}
	if c, ok := stateCentres[normalState(j.Address.State)]; ok && distance(c[0], c[1], at.Latitude, at.Longitude) > maxStateDistance {
		add(FlagOutsideState)
	}
	for _, p := range photos {
		// The file's own GPS where it survived, else the phone's position
		// the app recorded at capture (browsers strip EXIF GPS).
		switch {
		case p.Exif != nil && p.Exif.Latitude != nil:
			if distance(*p.Exif.Latitude, *p.Exif.Longitude, at.Latitude, at.Longitude) > maxPhotoDistance {
				add(FlagPhotoFar)
			}
		case p.Device != nil:
			if distance(p.Device.Latitude, p.Device.Longitude, at.Latitude, at.Longitude) > maxPhotoDistance {
				add(FlagPhotoFar)
			}
		default:
			add(FlagPhotoWithoutGPS)
		}
		if p.Exif != nil && p.Exif.Taken != nil && j.Visit != nil &&
			(p.Exif.Taken.Before(j.Visit.At.Add(-visitSlack)) || p.Exif.Taken.After(now.Add(visitSlack))) {
			add(FlagPhotoTime)
		}
	}
	r.Flags = flags
}

// AnnouncePhoto is called before a photo file is stored under key: a file
// that no photo row ever refers to is swept later (pending.Sweeper).
func (s *Service) AnnouncePhoto(ctx context.Context, key string) error {
	if err := s.store.Announce(ctx, key); err != nil {
		return apperr.Internal(err)
	}
	return nil
}

// AddPhoto records a photo stored for the agent's visit under way.
func (s *Service) AddPhoto(ctx context.Context, agent FieldAgent, addressID string, p Photo, idem Idem) (Photo, error) {
	if !slices.Contains(PhotoTags, p.Tag) {
		return Photo{}, apperr.Validation(apperr.Detail{Field: "tag", Message: fmt.Sprintf("must be one of %v", PhotoTags)})
	}
	_, err := s.agentCall(ctx, agent, addressID, idem, func(tx Tx, c *Case, j *Job, now time.Time) error {
		if j.Status != InProgress {
			return apperr.New(apperr.KindConflict, CodeInvalidTransition, "Check in before taking photos")
		}
		p.CreatedAt, p.Key = now, idem.Key
		return tx.InsertPhotos(ctx, *j, []Photo{p})
	})
	if err != nil {
		return Photo{}, err
	}
	// A retry stored nothing: answer with the photo the first call stored.
	return s.store.PhotoByKey(ctx, addressID, idem.Key)
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
}

// Outcomes an agent may report.
const OutcomeNoAccess = "NO_ACCESS"

// maxText bounds an agent's free text.
const maxText = 2000

// MinPhotos is how many photos of the visit a VERIFIED outcome needs.
const MinPhotos = 2

func (o Outcome) check() error {
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
	for field, v := range map[string]string{"verifiedAddress": o.VerifiedAddress, "notes": o.Notes} {
		if utf8.RuneCountInString(v) > maxText {
			d = append(d, apperr.Detail{Field: field, Message: fmt.Sprintf("must be at most %d characters", maxText)})
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

// Complete ends the agent's visit under way: VERIFIED (with at least
// MinPhotos photos taken since check-in) or REJECTED with a reason end
// the job; NO_ACCESS and UNSAFE_AREA are attempts (NO_ACCESS sends the
// job back to ASSIGNED with a re-visit the next working day, and rejects
// it on the third; UNSAFE_AREA leaves it ASSIGNED for operations to
// decide). The evidence is checked and flagged, never refused.
func (s *Service) Complete(ctx context.Context, agent FieldAgent, addressID string, o Outcome, idem Idem) (Task, error) {
	if err := o.check(); err != nil {
		return Task{}, err
	}
	return s.agentCall(ctx, agent, addressID, idem, func(tx Tx, c *Case, j *Job, now time.Time) error {
		if j.Status != InProgress {
			return apperr.New(apperr.KindConflict, CodeInvalidTransition, "Check in before completing the visit")
		}
		visit := visitPhotos(*j)
		switch {
		case o.Outcome == OutcomeNoAccess:
			if err := j.NoAccess(o.Notes, NextWorkingDay(now), now, agent.ID); err != nil {
				return err
			}
			if j.Result != nil { // the last attempt: rejected, with who and where
				lat, lng := o.At.Latitude, o.At.Longitude
				j.Result.Agent, j.Result.VerifiedLatitude, j.Result.VerifiedLongitude = &Agent{ID: agent.ID, Name: agent.Name}, &lat, &lng
				evidenceFlags(*j, o.At, nil, now, j.Result)
			}
		case o.Outcome == Rejected && o.Reason == ReasonUnsafeArea:
			j.Attempts = append(j.Attempts, Attempt{At: now, Reason: ReasonUnsafeArea, Notes: o.Notes, By: agent.ID})
			if err := j.move(Assigned, now, agent.ID); err != nil {
				return err
			}
		default:
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
			evidenceFlags(*j, o.At, visit, now, &r)
			if err := j.Complete(o.Outcome, r, nil, now, agent.ID); err != nil {
				return err
			}
		}
		return s.changed(ctx, tx, c, j, nil, now)
	})
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
