package verification

import (
	"context"
	"slices"
	"time"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/ids"
)

// Service holds the verification use cases.
type Service struct {
	store     Store
	now       func() time.Time
	sandbox   Sandbox
	onFinal   func(ctx context.Context, env, status string)
	customers Customers
}

// Customers says whether a customer is there for a caller as the
// customer context, the owner of deletes, sees it at this moment: this
// context learns of a delete only through an event, and a lender who
// deleted a customer must not download its photos a moment later.
type Customers interface {
	Exists(ctx context.Context, orgID, env, customerID string) (bool, error)
}

// AskCustomers makes every lender's photo download check with c first.
func (s *Service) AskCustomers(c Customers) { s.customers = c }

// OnFinal registers f, told whenever an address's verification reaches a
// final status (the outcome metric). It runs inside the transaction, so
// a transaction rolled back and retried tells it twice: a metric can
// live with that, nothing else should use it.
func (s *Service) OnFinal(f func(ctx context.Context, env, status string)) { s.onFinal = f }

// NewService returns a Service.
func NewService(s Store, now func() time.Time, sandbox Sandbox) *Service {
	return &Service{store: s, now: now, sandbox: sandbox}
}

// CaseInput is a customer as the customer context announces it.
type CaseInput struct {
	CustomerID, OrgID, Env string
	FirstName, LastName    string
	Phone, LoanID          string
	LoanType               string
	Documents              []byte
	Addresses              []AddressInput
	At                     time.Time
}

// AddressInput is one address to verify.
type AddressInput struct {
	ID      string
	Address Address
}

// Open starts verifying a new customer's addresses, in the caller's
// transaction (the consumer's). A replay changes nothing.
func (s *Service) Open(ctx context.Context, tx Tx, in CaseInput) error {
	now := s.now().UTC()
	c := Case{CustomerID: in.CustomerID, OrgID: in.OrgID, Env: in.Env, FirstName: in.FirstName, LastName: in.LastName,
		Phone: in.Phone, LoanID: in.LoanID, LoanType: in.LoanType, Documents: in.Documents, Status: Pending,
		CreatedAt: orNow(in.At, now), UpdatedAt: now}
	created, err := tx.InsertCase(ctx, c)
	if err != nil || !created {
		return err
	}
	if err := tx.Count(ctx, c.OrgID, c.Env, "", c.Status); err != nil {
		return err
	}
	for _, a := range in.Addresses {
		if _, err := s.addAddress(ctx, tx, c.CustomerID, a); err != nil {
			return err
		}
	}
	// Only once every address is in: a sandbox address verified before
	// its sibling was added would make the case VERIFIED for a moment.
	return s.startSandbox(ctx, tx, c.CustomerID)
}

// AddAddress starts verifying one more address of a customer.
func (s *Service) AddAddress(ctx context.Context, tx Tx, customerID string, in AddressInput) error {
	added, err := s.addAddress(ctx, tx, customerID, in)
	if err != nil || !added {
		return err
	}
	return s.startSandbox(ctx, tx, customerID)
}

// addAddress opens the job of one more address of a customer and reports
// whether it did (not for a deleted customer, nor twice).
func (s *Service) addAddress(ctx context.Context, tx Tx, customerID string, in AddressInput) (bool, error) {
	c, err := tx.Case(ctx, customerID)
	if err != nil || c.DeletedAt != nil {
		return false, ignoreMissing(err)
	}
	if slices.ContainsFunc(c.Jobs, func(j Job) bool { return j.AddressID == in.ID }) {
		return false, nil
	}
	now := s.now().UTC()
	j := Job{AddressID: in.ID, CustomerID: c.CustomerID, OrgID: c.OrgID, Env: c.Env, Position: len(c.Jobs),
		Address: in.Address, Status: Pending, Sequence: 1, CreatedAt: now, UpdatedAt: now,
		Timeline: []Transition{{Status: Pending, At: now, By: "system"}}}
	if c.Env == EnvTest {
		due := now.Add(s.sandbox.Delay)
		j.DueAt = &due
	} else if j.DueBy, err = dueBy(ctx, tx, c.OrgID, now); err != nil {
		return false, err
	}
	if ok, err := tx.InsertJob(ctx, j); err != nil || !ok {
		return false, err
	}
	c.Jobs = append(c.Jobs, j)
	if err := s.changed(ctx, tx, &c, &c.Jobs[len(c.Jobs)-1], nil, now); err != nil || j.Env != EnvLive {
		return err == nil, err
	}
	agents, err := tx.ActiveAgents(ctx)
	if err != nil {
		return false, err
	}
	return true, s.offer(ctx, tx, &c, &c.Jobs[len(c.Jobs)-1], agents, now)
}

// Refresh updates what a case shows of its customer (names, phone, loan,
// documents).
func (s *Service) Refresh(ctx context.Context, tx Tx, in CaseInput) error {
	c, err := tx.Case(ctx, in.CustomerID)
	if err != nil || c.DeletedAt != nil {
		return ignoreMissing(err)
	}
	c.FirstName, c.LastName, c.Phone, c.LoanID, c.LoanType = in.FirstName, in.LastName, in.Phone, in.LoanID, in.LoanType
	docs, err := mergeDocuments(c.Documents, in.Documents)
	if err != nil {
		return err
	}
	c.Documents, c.UpdatedAt = docs, s.now().UTC()
	return tx.UpdateCase(ctx, c)
}

// DocumentAdded adds a document appended through the document context
// (doc: the document as the customer read shows it) to the case, so the
// completed and rejected events list it. A redelivery changes nothing.
func (s *Service) DocumentAdded(ctx context.Context, tx Tx, orgID, env, customerID, docID string, doc []byte) error {
	c, err := tx.Case(ctx, customerID)
	if err != nil || c.DeletedAt != nil || c.OrgID != orgID || c.Env != env {
		return ignoreMissing(err)
	}
	docs, err := mergeDocuments(c.Documents, []byte("["+string(doc)+"]"))
	if err != nil {
		return err
	}
	c.Documents, c.UpdatedAt = docs, s.now().UTC()
	return tx.UpdateCase(ctx, c)
}

// Close takes a deleted customer out of verification: its open jobs are
// cancelled (and leave the agents' lists), final ones keep their outcome,
// and the case leaves the statistics.
func (s *Service) Close(ctx context.Context, tx Tx, customerID string) error {
	c, err := tx.Case(ctx, customerID)
	if err != nil || c.DeletedAt != nil {
		return ignoreMissing(err)
	}
	now := s.now().UTC()
	for i := range c.Jobs {
		if c.Jobs[i].Cancel(now) {
			if err := tx.UpdateJob(ctx, c.Jobs[i]); err != nil {
				return err
			}
			if err := tx.Emit(ctx, Change{Type: EventAddressUpdated, Case: c, Job: &c.Jobs[i]}); err != nil {
				return err
			}
		}
	}
	if err := tx.Count(ctx, c.OrgID, c.Env, c.Status, ""); err != nil {
		return err
	}
	if IsCaseFinal(c.Status) && c.VerificationDate != nil {
		// A deleted customer leaves the statistics, turnaround included.
		if err := tx.AddTurnaround(ctx, c.OrgID, c.Env, -c.VerificationDate.Sub(c.CreatedAt), -1); err != nil {
			return err
		}
	}
	c.DeletedAt, c.UpdatedAt = &now, now
	return tx.UpdateCase(ctx, c)
}

// changed persists a job's transition (with photos, if any) and publishes
// it, then moves the case's status, counters and, on a final status, its
// turnaround and completed/rejected event.
func (s *Service) changed(ctx context.Context, tx Tx, c *Case, j *Job, photos []Photo, now time.Time) error {
	if len(photos) > 0 {
		if err := tx.InsertPhotos(ctx, *j, photos); err != nil {
			return err
		}
	}
	if err := tx.UpdateJob(ctx, *j); err != nil {
		return err
	}
	if s.onFinal != nil && IsFinal(j.Status) {
		s.onFinal(ctx, j.Env, j.Status)
	}
	finishedAt := c.VerificationDate
	before := c.Restatus(now)
	if err := tx.Emit(ctx, Change{Type: EventAddressUpdated, Case: *c, Job: j}); err != nil {
		return err
	}
	if c.Status == before {
		return nil
	}
	if err := tx.Count(ctx, c.OrgID, c.Env, before, c.Status); err != nil {
		return err
	}
	if err := tx.UpdateCase(ctx, *c); err != nil {
		return err
	}
	if IsCaseFinal(before) && finishedAt != nil {
		// Reopened by an added address: its turnaround counts again when
		// it finishes, measured afresh, not twice.
		if err := tx.AddTurnaround(ctx, c.OrgID, c.Env, -finishedAt.Sub(c.CreatedAt), -1); err != nil {
			return err
		}
	}
	if !IsCaseFinal(c.Status) {
		return nil
	}
	if err := tx.AddTurnaround(ctx, c.OrgID, c.Env, now.Sub(c.CreatedAt), 1); err != nil {
		return err
	}
	typ := EventCompleted
	if c.Status == Rejected {
		typ = EventRejected
	}
	return tx.Emit(ctx, Change{Type: typ, Case: *c})
}

// Stats returns the caller's figures.
func (s *Service) Stats(ctx context.Context, who Caller) (Stats, error) {
	return s.store.Stats(ctx, who.OrgID, who.Env)
}

// ErrPhotoNotFound is answered for photos the caller may not see too.
var ErrPhotoNotFound = apperr.NotFound("Photo")

// Photo returns one photo of a caller's live customer.
func (s *Service) Photo(ctx context.Context, who Caller, customerID, photoID string) (Photo, error) {
	if !ids.Valid("cus", customerID) || !ids.Valid("pho", photoID) {
		return Photo{}, ErrPhotoNotFound
	}
	p, err := s.store.Photo(ctx, who.OrgID, who.Env, customerID, photoID)
	if err != nil || who.Context || s.customers == nil {
		return p, err
	}
	ok, err := s.customers.Exists(ctx, who.OrgID, who.Env, customerID)
	if err != nil {
		return Photo{}, apperr.Unavailable("The customer service", err)
	}
	if !ok {
		return Photo{}, ErrPhotoNotFound
	}
	return p, nil
}

func ignoreMissing(err error) error {
	if apperr.IsCode(err, apperr.CodeNotFound) {
		return nil // an event about a customer this context never saw, or no longer keeps
	}
	return err
}

func orNow(t, now time.Time) time.Time {
	if t.IsZero() {
		return now
	}
	return t.UTC()
}
