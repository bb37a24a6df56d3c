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

// Claim is what a worker's claim returns: the render it leased, with the
// customer's outcome as the claim found it (its photos are read before
// the render's transaction, and the version prints that same outcome: a
// later outcome or document queues a version of its own); or, when no
// render was due, Next.
type Claim struct {
	Render     Render
	Claimed    bool
	Outcome    Outcome
	HasOutcome bool // false: no final outcome (the render has nothing to print)
	// Next is when the earliest render a claim could take falls due, when
	// none was claimed (zero: none queued).
	Next time.Time
}

// RenderNext renders the next due report version. It returns the id of
// the render it took ("" when none was due; a failed render counts: it is
// queued again, with backoff), when the next one falls due as its last
// statement saw the queue (zero: none queued; after a failed render, now,
// so that a worker claims again), and why it failed. A claim that fails
// (the database) takes no render and returns its error.
func (s *Service) RenderNext(ctx context.Context) (string, time.Time, error) {
	c, err := s.repo.ClaimRender(ctx, renderLease)
	if err != nil || !c.Claimed {
		return "", c.Next, err
	}
	r := c.Render
	// The render continues the trace of the event that queued it, so its
	// report.generated (and the report.ready webhook) stay in that trace.
	ctx = telemetry.WithTraceparent(ctx, r.Trace)
	next, err := s.renderOne(ctx, c)
	if err != nil {
		wait := min(time.Second<<min(r.Attempts, 8), 5*time.Minute)
		if rerr := s.repo.RetryRender(context.WithoutCancel(ctx), r.ID, wait); rerr != nil {
			err = errors.Join(err, rerr)
		}
		return r.ID, s.now(), fmt.Errorf("render %s for %s: %w", r.ID, r.CustomerID, err)
	}
	return r.ID, next, nil
}

// renderOne renders c's render: photos first, outside any transaction;
// then the version number, the PDF, its object, its row and event, and
// the end of the render, in one transaction that holds the customer's
// version lock. It returns when the next render falls due.
func (s *Service) renderOne(ctx context.Context, c Claim) (time.Time, error) {
	r, o := c.Render, c.Outcome
	photos := map[string][]byte{}
	if c.HasOutcome {
		var err error
		if photos, err = s.thumbnails(ctx, r.OrgID, r.Env, o); err != nil {
			return time.Time{}, fmt.Errorf("photos: %w", err)
		}
	}
	var next time.Time
	err := s.repo.Atomic(ctx, func(tx Tx) error {
		cu, err := tx.CustomerOf(ctx, r.OrgID, r.Env, r.CustomerID)
		if errors.Is(err, ErrCustomerNotFound) {
			return ErrProfileMissing
		}
		if err != nil {
			return err
		}
		if c.HasOutcome && !cu.Deleted { // else nothing to render, or nobody left to render it for
			rep, err := s.version(ctx, tx, r, cu, o, photos)
			if err != nil {
				return err
			}
			if err := tx.SaveReport(ctx, rep); err != nil {
				return err
			}
		}
		next, err = tx.FinishRender(ctx, r.ID)
		return err
	})
	return next, err
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
