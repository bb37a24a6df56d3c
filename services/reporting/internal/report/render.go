package report

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kycfield/kyc/pkg/ids"
	"github.com/kycfield/kyc/pkg/telemetry"
)

// Render is a report version waiting to be rendered. ID is the event that
// called for it (an outcome, a document added later): the PDF's object is
// named after it, so a render retried after a crash overwrites it.
type Render struct {
	ID, OrgID, Env, CustomerID string
	Attempts                   int
	// Trace is the W3C traceparent of the event that queued it.
	Trace string
}

// renderLease is how long a worker holds a render: longer than the
// slowest render (photos time out after PHOTO_TIMEOUT each, four at once).
const renderLease = 2 * time.Minute

// OutcomeReached keeps a customer's final outcome and queues its report,
// in the consumer's transaction. Rendering is not done here: it needs the
// photos, a call to another service, which a consumer's transaction must
// not wait on.
func (s *Service) OutcomeReached(ctx context.Context, tx Tx, eventID, orgID, env string, o Outcome) error {
	if !Final(o.OverallStatus) {
		return nil
	}
	if err := tx.SaveOutcome(ctx, orgID, env, o); err != nil {
		return err
	}
	return tx.QueueRender(ctx, Render{ID: eventID, OrgID: orgID, Env: env, CustomerID: o.CustomerID})
}

// DocumentAdded records a document added to a customer (document.added)
// and, when the customer already has a report, queues a new version that
// lists it: a document that comes after the verification ended reaches
// the report too.
func (s *Service) DocumentAdded(ctx context.Context, tx Tx, eventID, orgID, env, customerID string, d Document) error {
	added, err := tx.AddDocument(ctx, orgID, env, customerID, d)
	if err != nil || !added {
		return err
	}
	if _, ok, err := tx.Outcome(ctx, orgID, env, customerID); err != nil || !ok {
		return err
	}
	return tx.QueueRender(ctx, Render{ID: eventID, OrgID: orgID, Env: env, CustomerID: customerID})
}

// RenderNext renders the next due report version. It reports whether
// there was one (so a worker goes on at once) and why it failed; a failed
// render is retried later, with backoff.
func (s *Service) RenderNext(ctx context.Context) (bool, error) {
	r, ok, err := s.repo.ClaimRender(ctx, renderLease)
	if err != nil || !ok {
		return false, err
	}
	// The render continues the trace of the event that queued it, so its
	// report.generated (and the report.ready webhook) stay in that trace.
	ctx = telemetry.WithTraceparent(ctx, r.Trace)
	if err := s.renderOne(ctx, r); err != nil {
		wait := min(time.Second<<min(r.Attempts, 8), 5*time.Minute)
		if rerr := s.repo.RetryRender(context.WithoutCancel(ctx), r.ID, wait); rerr != nil {
			err = errors.Join(err, rerr)
		}
		return true, fmt.Errorf("render %s for %s: %w", r.ID, r.CustomerID, err)
	}
	return true, nil
}

// renderOne renders r: photos first, outside any transaction; then the
// version number, the PDF, its object, its row and event, and the end of
// r, in one transaction that holds the customer's version lock.
func (s *Service) renderOne(ctx context.Context, r Render) error {
	var o Outcome
	var ok bool
	err := s.repo.Atomic(ctx, func(tx Tx) (err error) {
		o, ok, err = tx.Outcome(ctx, r.OrgID, r.Env, r.CustomerID)
		return err
	})
	if err != nil {
		return err
	}
	photos := map[string][]byte{}
	if ok {
		if photos, err = s.thumbnails(ctx, r.OrgID, r.Env, o); err != nil {
			return fmt.Errorf("photos: %w", err)
		}
	}
	return s.repo.Atomic(ctx, func(tx Tx) error {
		c, err := tx.CustomerOf(ctx, r.OrgID, r.Env, r.CustomerID)
		if errors.Is(err, ErrCustomerNotFound) {
			return ErrProfileMissing
		}
		if err != nil {
			return err
		}
		if !ok || c.Deleted {
			return tx.FinishRender(ctx, r.ID) // nothing to render, or nobody left to render it for
		}
		if o, _, err = tx.Outcome(ctx, r.OrgID, r.Env, r.CustomerID); err != nil {
			return err
		}
		rep, err := s.version(ctx, tx, r, c, o, photos)
		if err != nil {
			return err
		}
		if err := tx.SaveReport(ctx, rep); err != nil {
			return err
		}
		return tx.FinishRender(ctx, r.ID)
	})
}

// version renders and stores the next version of c's report.
func (s *Service) version(ctx context.Context, tx Tx, r Render, c Customer, o Outcome, photos map[string][]byte) (Report, error) {
	version, err := tx.NextVersion(ctx, r.OrgID, r.Env, r.CustomerID)
	if err != nil {
		return Report{}, err
	}
	rep := Report{ID: ids.New("rep"), CustomerID: r.CustomerID, OrgID: r.OrgID, Env: r.Env, Version: version, EventID: r.ID,
		Status: o.OverallStatus, Code: NewCode(), GeneratedAt: s.now().UTC().Truncate(time.Second),
		ObjectKey: r.OrgID + "/" + r.Env + "/" + r.CustomerID + "/" + r.ID + ".pdf"}
	content := s.Content(rep, c, o)
	content.Photos = photos
	if name, err := tx.OrganizationName(ctx, r.OrgID); err != nil {
		return rep, err
	} else if name != "" {
		content.OrgName = name
	}
	if content.Brand, err = tx.BrandToShow(ctx, r.OrgID, r.Env); err != nil {
		return rep, err
	}
	if content.Brand != nil {
		content.OrgName = content.Brand.DisplayName
	}
	return rep, s.store(ctx, &rep, content)
}
