package verification

import (
	"context"
	"encoding/base64"
	"strings"
	"time"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/ids"
)

// ReviewReads are the review queue's reads. Operations see every
// organization's held addresses; only live ones are ever held.
type ReviewReads interface {
	// Held lists jobs IN_REVIEW, oldest held first, after the cursor
	// (zero: from the start), at most limit.
	Held(ctx context.Context, after HeldCursor, limit int) ([]Held, error)
	// HeldCase reads the case of an address IN_REVIEW with its jobs and
	// photos and its organization's settings (ErrReviewNotFound when the
	// address is not held).
	HeldCase(ctx context.Context, addressID string) (Case, OrgSettings, error)
	// HeldPhoto reads a photo of an address IN_REVIEW.
	HeldPhoto(ctx context.Context, addressID, photoID string) (Photo, error)
	// AgentRecord reads an agent and its visits over the last days.
	AgentRecord(ctx context.Context, agentID string, since time.Time) (AgentRecord, error)
}

// Held is one address in the review queue.
type Held struct {
	Job
	OrgName      string
	CustomerName string
	AgentName    string
}

// HeldCursor is where a page of the queue starts: after this address,
// held at this time.
type HeldCursor struct {
	Since     time.Time
	AddressID string
}

// String is the cursor as the API hands it out (opaque to clients).
func (c HeldCursor) String() string {
	return base64.RawURLEncoding.EncodeToString([]byte(c.Since.UTC().Format(time.RFC3339Nano) + "|" + c.AddressID))
}

// ParseHeldCursor reads a cursor handed out by String ("" is the start).
func ParseHeldCursor(s string) (HeldCursor, error) {
	if s == "" {
		return HeldCursor{}, nil
	}
	bad := apperr.Validation(apperr.Detail{Field: "cursor", Message: "is not a cursor this API handed out"})
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return HeldCursor{}, bad
	}
	at, id, ok := strings.Cut(string(b), "|")
	t, err := time.Parse(time.RFC3339Nano, at)
	if !ok || err != nil || !ids.Valid("adr", id) {
		return HeldCursor{}, bad
	}
	return HeldCursor{Since: t, AddressID: id}, nil
}

// AgentRecord is an agent as a reviewer weighs its evidence: who, and
// how its recent visits ended.
type AgentRecord struct {
	FieldAgent
	// Visits counts the agent's visits since the record's start by
	// outcome (VERIFIED, REJECTED, NO_ACCESS, UNSAFE_AREA).
	Visits map[string]int
}

// RecordDays is how far back an agent's record goes.
const RecordDays = 30

// ReviewPage is a page of the review queue.
type ReviewPage struct {
	Items []Held
	// Next is the cursor of the next page ("" on the last).
	Next string
}

// Reviews lists the held addresses, oldest first.
func (s *Service) Reviews(ctx context.Context, cursor string, limit int) (ReviewPage, error) {
	after, err := ParseHeldCursor(cursor)
	if err != nil {
		return ReviewPage{}, err
	}
	items, err := s.store.Held(ctx, after, limit+1)
	if err != nil {
		return ReviewPage{}, err
	}
	page := ReviewPage{Items: items}
	if len(items) > limit {
		page.Items = items[:limit]
		last := page.Items[limit-1]
		page.Next = HeldCursor{Since: last.Hold.Since, AddressID: last.AddressID}.String()
	}
	return page, nil
}

// ReviewCase is everything a reviewer weighs about one held address.
type ReviewCase struct {
	Case     Case
	Job      Job
	Org      OrgSettings
	Evidence Evidence
	Agent    *AgentRecord
}

// Review reads one held address with its evidence and the agent's record.
func (s *Service) Review(ctx context.Context, addressID string) (ReviewCase, error) {
	if !ids.Valid("adr", addressID) {
		return ReviewCase{}, ErrReviewNotFound
	}
	c, org, err := s.store.HeldCase(ctx, addressID)
	if err != nil {
		return ReviewCase{}, err
	}
	out := ReviewCase{Case: c, Org: org}
	for _, j := range c.Jobs {
		if j.AddressID == addressID {
			out.Job = j
		}
	}
	if out.Job.Hold == nil {
		return ReviewCase{}, ErrReviewNotFound
	}
	if out.Evidence, err = s.store.Evidence(ctx, addressID); err != nil {
		return ReviewCase{}, err
	}
	rec, err := s.store.AgentRecord(ctx, out.Job.Hold.AgentID, s.now().UTC().AddDate(0, 0, -RecordDays))
	switch {
	case err == nil:
		out.Agent = &rec
	case !apperr.IsCode(err, apperr.CodeNotFound):
		return ReviewCase{}, err
	}
	return out, nil
}

// ReviewPhoto returns a photo of a held address.
func (s *Service) ReviewPhoto(ctx context.Context, addressID, photoID string) (Photo, error) {
	if !ids.Valid("adr", addressID) || !ids.Valid("pho", photoID) {
		return Photo{}, ErrPhotoNotFound
	}
	return s.store.HeldPhoto(ctx, addressID, photoID)
}
