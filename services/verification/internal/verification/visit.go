package verification

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/ids"
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
	// Flags are raised at check-in (SUSPECT_LOCATION,
	// IMPOSSIBLE_TRAVEL) and reported with the visit's outcome.
	Flags []FlagDetail `json:"flags,omitempty"`
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

// CheckIn starts a visit at a GPS point.
func (s *Service) CheckIn(ctx context.Context, agent FieldAgent, addressID string, at Point, idem Idem) (Task, error) {
	if err := checkPoint(at, ""); err != nil {
		return Task{}, err
	}
	return s.agentCall(ctx, agent, addressID, idem, func(tx Tx, c *Case, j *Job, now time.Time) error {
		if err := j.CheckIn(now, agent.ID); err != nil {
			return err
		}
		last, elsewhere, err := tx.LastFixes(ctx, agent.ID, j.AddressID)
		if err != nil {
			return err
		}
		j.Visit = &CheckInRecord{Point: at, At: now, Flags: checkInFlags(at, now, last, elsewhere)}
		if err := tx.RecordFix(ctx, Fix{AgentID: agent.ID, AddressID: j.AddressID, Kind: FixCheckIn, Point: at, At: now}); err != nil {
			return err
		}
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

// CanAddPhoto says, before any byte of a photo is stored, whether the
// agent may add one to the address now: its own task, under way (or a
// retry of an upload it made, idemKey, answered as the first was). The
// id must be one this service generated (adr_ and 32 hex digits), so
// that an object key built from it can hold nothing else ("..", slashes).
func (s *Service) CanAddPhoto(ctx context.Context, agent FieldAgent, addressID, idemKey string) error {
	if !ids.Valid("adr", addressID) {
		return ErrTaskNotFound
	}
	status, err := s.store.TaskStatus(ctx, agent.ID, addressID)
	if err != nil || status == InProgress {
		return err
	}
	if idemKey != "" {
		if _, err := s.store.PhotoByKey(ctx, addressID, idemKey); err == nil {
			return nil // a retry after the visit ended: AddPhoto answers with the photo stored first
		}
	}
	return errPhotoBeforeCheckIn
}

var errPhotoBeforeCheckIn = apperr.New(apperr.KindConflict, CodeInvalidTransition, "Check in before taking photos")

// maxHashCandidates bounds a reuse lookup: a photo matching more
// addresses than this is flagged all the same.
const maxHashCandidates = 50

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
			return errPhotoBeforeCheckIn
		}
		p.CreatedAt, p.Key = now, idem.Key
		var matches []PhotoMatch
		if p.Hash != nil {
			candidates, err := tx.HashCandidates(ctx, j.Env, *p.Hash, maxHashCandidates)
			if err != nil {
				return err
			}
			matches = matchesOf(p, *j, candidates)
			p.Reused = len(matches) > 0
		}
		if err := tx.InsertPhotos(ctx, *j, []Photo{p}); err != nil {
			return err
		}
		if p.Hash == nil {
			return nil
		}
		return tx.InsertPhotoHash(ctx, *j, p, matches)
	})
	if err != nil {
		return Photo{}, err
	}
	// A retry stored nothing: answer with the photo the first call stored.
	return s.store.PhotoByKey(ctx, addressID, idem.Key)
}
