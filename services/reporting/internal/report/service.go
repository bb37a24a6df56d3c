package report

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"time"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/ids"
)

// Error codes of this context.
const (
	CodeNotReady           = "REPORT_NOT_READY"
	CodeStorageUnavailable = "STORAGE_UNAVAILABLE"
)

// Errors answered to clients. Unknown, deleted and other tenants'
// customers are all the same 404, so nothing leaks across tenants.
var (
	ErrCustomerNotFound = apperr.NotFound("Customer")
	ErrReportNotFound   = apperr.NotFound("Report")
	ErrNotReady         = apperr.New(apperr.KindConflict, CodeNotReady,
		"The report is not ready: the customer's verification has not finished yet")
)

// ErrProfileMissing means an outcome arrived before the customer's own
// event (they travel on different topics): its render is retried.
var ErrProfileMissing = errors.New("report: customer profile not received yet")

// Content is everything one report shows.
type Content struct {
	Report   Report
	Customer Customer
	Outcome  Outcome
	// OrgName is who the report is prepared for.
	OrgName string
	// VerifyURL is where anyone holding Report.Code checks the report.
	VerifyURL string
	Sandbox   bool
	// Photos are the thumbnails by photo id; a photo without one is
	// printed as unavailable.
	Photos map[string][]byte
	// Brand replaces our branding (Enterprise white-labelling); nil for
	// ours.
	Brand *Brand
}

// Renderer turns content into a PDF.
type Renderer interface {
	Render(c Content) ([]byte, error)
}

// Files keeps the PDFs (the object store).
type Files interface {
	PutSized(ctx context.Context, key string, r io.Reader, size int64, contentType string) (int64, error)
	Get(ctx context.Context, key string) (io.ReadCloser, error)
}

// Repository reads reports and the customer read model, and runs the
// render queue.
type Repository interface {
	// Atomic runs fn in one transaction.
	Atomic(ctx context.Context, fn func(Tx) error) error
	// ClaimRender leases the oldest due render whose customer has no
	// older one waiting, for lease, and reads its customer's outcome in
	// the same statement; when none is due it says when the next falls
	// due instead.
	ClaimRender(ctx context.Context, lease time.Duration) (Claim, error)
	// RetryRender makes a claimed render due again after wait.
	RetryRender(ctx context.Context, id string, wait time.Duration) error
	// Customer is the caller's live (not deleted) customer, or
	// ErrCustomerNotFound.
	Customer(ctx context.Context, who Caller, customerID string) (Customer, error)
	// Latest is the newest report of the caller's customer, or
	// ErrReportNotFound.
	Latest(ctx context.Context, who Caller, customerID string) (Report, error)
	// ByCode is the report a verification code names, or
	// ErrReportNotFound.
	ByCode(ctx context.Context, code string) (Report, error)
	// CustomerDeleted reports whether the report's customer was deleted,
	// as customer.deleted told this context.
	CustomerDeleted(ctx context.Context, r Report) (bool, error)
	// SaveBrand saves the caller's branding and records audit in the same
	// transaction.
	SaveBrand(ctx context.Context, who Caller, b Brand, keepLogo bool, audit Audit) (Brand, error)
	// Brand is the caller's branding, or ErrBrandNotSet.
	Brand(ctx context.Context, who Caller) (Brand, error)
}

// Tx is the repository inside a consumer's transaction.
type Tx interface {
	SaveCustomer(ctx context.Context, c Customer) error
	// CustomerOf is the customer in org and env whatever its state, or
	// ErrCustomerNotFound.
	CustomerOf(ctx context.Context, orgID, env, customerID string) (Customer, error)
	// NextVersion locks the customer's reports and returns the next
	// version number.
	NextVersion(ctx context.Context, orgID, env, customerID string) (int, error)
	// SaveReport records r and publishes its report.generated event.
	SaveReport(ctx context.Context, r Report) error
	// SaveOrganization records an organization's name and plan at its
	// version (an older version changes nothing; an event without the
	// name keeps the one known).
	SaveOrganization(ctx context.Context, o Organization) error
	// OrganizationName is the name reports are prepared for ("" unknown).
	OrganizationName(ctx context.Context, orgID string) (string, error)
	// BrandToShow is the branding of org and env while the organization
	// is on Enterprise; nil otherwise.
	BrandToShow(ctx context.Context, orgID, env string) (*Brand, error)
	// QueueRender records that a new version is called for (a second
	// queueing of the same id changes nothing).
	QueueRender(ctx context.Context, r Render) error
	// FinishRender removes a render once its version is saved (or it
	// has nothing to render) and returns when the next render falls due
	// as this transaction sees the queue (zero: none queued), so a worker
	// knows whether to claim again without a claim that finds nothing.
	FinishRender(ctx context.Context, id string) (time.Time, error)
	// SaveOutcome keeps the customer's newest final outcome.
	SaveOutcome(ctx context.Context, orgID, env string, o Outcome) error
	// Outcome is the customer's newest final outcome, with every
	// document added since; false when it has none.
	Outcome(ctx context.Context, orgID, env, customerID string) (Outcome, bool, error)
	// AddDocument records a document added to the customer; false when
	// it was recorded already.
	AddDocument(ctx context.Context, orgID, env, customerID string, d Document) (bool, error)
}

// Service holds the reporting use cases.
type Service struct {
	repo      Repository
	files     Files
	render    Renderer
	evidence  Evidence
	now       func() time.Time
	links     Links
	customers Customers
}

// Customers says whether a customer is there for a caller as the
// customer context, the owner of deletes, sees it at this moment: this
// context's own copy learns of a delete only through an event, and a
// lender who deleted a customer must not download its report a moment
// later.
type Customers interface {
	Exists(ctx context.Context, orgID, env, customerID string) (bool, error)
}

// AskCustomers makes every download check with c first.
func (s *Service) AskCustomers(c Customers) { s.customers = c }

// exists is nil when the caller's customer is there. The customer context
// says so when it is asked: a customer it has but whose profile has not
// reached this context yet is a report not ready (409), not an unknown
// customer (404). Without it, this context's own copy answers.
func (s *Service) exists(ctx context.Context, who Caller, customerID string) error {
	if s.customers == nil {
		_, err := s.repo.Customer(ctx, who, customerID)
		return err
	}
	if !ids.Valid("cus", customerID) {
		return ErrCustomerNotFound
	}
	ok, err := s.customers.Exists(ctx, who.OrgID, who.Env, customerID)
	if err != nil {
		return apperr.Unavailable("The customer service", err)
	}
	if !ok {
		return ErrCustomerNotFound
	}
	return nil
}

// NewService builds a Service; evidence may be nil (reports then list
// the photos without showing them).
func NewService(repo Repository, files Files, render Renderer, evidence Evidence, now func() time.Time, links Links) *Service {
	return &Service{repo: repo, files: files, render: render, evidence: evidence, now: now, links: links}
}

// Organization is what reports need of an organization of auth-billing.
type Organization struct {
	ID, Name, Plan string
	Version        int64
}

// OrganizationChanged keeps the organizations' names and plans
// (auth-events): reports are prepared for the name, and branding is shown
// only while an organization is on Enterprise.
func (s *Service) OrganizationChanged(ctx context.Context, tx Tx, o Organization) error {
	return tx.SaveOrganization(ctx, o)
}

// CustomerChanged keeps the profile read model in step with the customer
// context (created, updated, address added, deleted).
func (s *Service) CustomerChanged(ctx context.Context, tx Tx, c Customer) error {
	c.BVN, c.NIN = MaskID(c.BVN), MaskID(c.NIN)
	return tx.SaveCustomer(ctx, c)
}

// store renders the report and writes it to the object store, filling in
// r's size and hash.
func (s *Service) store(ctx context.Context, r *Report, content Content) error {
	pdf, err := s.render.Render(content)
	if err != nil {
		return fmt.Errorf("render %s: %w", r.ID, err)
	}
	sum := sha256.Sum256(pdf)
	r.SHA256, r.Size = hex.EncodeToString(sum[:]), int64(len(pdf))
	if _, err := s.files.PutSized(ctx, r.ObjectKey, bytes.NewReader(pdf), r.Size, "application/pdf"); err != nil {
		return fmt.Errorf("store %s: %w", r.ID, err)
	}
	return nil
}

// Content assembles what report r of customer c shows.
func (s *Service) Content(r Report, c Customer, o Outcome) Content {
	c.BVN, c.NIN = MaskID(c.BVN), MaskID(c.NIN)
	return Content{Report: r, Customer: c, Outcome: o, OrgName: r.OrgID, VerifyURL: s.links.VerifyURL(r.Code), Sandbox: r.Env == EnvTest}
}

// Links builds the public addresses reports refer to.
type Links struct {
	// PublicURL is the gateway's address as clients reach it.
	PublicURL string
}

// VerifyURL is the public address that vouches for a report's code.
func (l Links) VerifyURL(code string) string {
	return l.PublicURL + "/api/v1/reports/verify/" + url.PathEscape(code)
}

// ReportURL is where a customer's newest report is downloaded.
func (l Links) ReportURL(customerID string) string {
	return l.PublicURL + "/api/v1/customers/" + url.PathEscape(customerID) + "/report"
}

// Latest opens the newest report of the caller's customer: 404 for a
// customer the caller cannot see, 409 REPORT_NOT_READY while none exists.
func (s *Service) Latest(ctx context.Context, who Caller, customerID string) (Report, io.ReadCloser, error) {
	if err := s.exists(ctx, who, customerID); err != nil {
		return Report{}, nil, err
	}
	r, err := s.repo.Latest(ctx, who, customerID)
	if errors.Is(err, ErrReportNotFound) {
		return Report{}, nil, ErrNotReady
	}
	if err != nil {
		return Report{}, nil, err
	}
	body, err := s.files.Get(ctx, r.ObjectKey)
	if err != nil {
		return Report{}, nil, StorageUnavailable(err)
	}
	return r, body, nil
}

// Verify returns the report a code names; a forged or malformed code is
// ErrReportNotFound. The code is the capability: it is not scoped to a
// tenant, and the answer carries nothing personal.
func (s *Service) Verify(ctx context.Context, code string) (Verification, error) {
	if !ValidCode(code) {
		return Verification{}, ErrReportNotFound
	}
	r, err := s.repo.ByCode(ctx, code)
	if err != nil {
		return Verification{}, err
	}
	deleted, err := s.repo.CustomerDeleted(ctx, r)
	return Verification{Report: r, Withdrawn: deleted}, err
}

// Verification is what a report's code vouches for: the report, and
// whether it was withdrawn. A lender deletes a customer when the record
// must no longer be relied on (a mistake, a fraud, a request to erase),
// so a report of a deleted customer is no longer genuine, whoever still
// holds its PDF; the check still names it, so that the holder knows the
// code itself was not forged.
type Verification struct {
	Report
	Withdrawn bool
}

// ReasonWithdrawn is why a report a code names is not genuine.
const ReasonWithdrawn = "WITHDRAWN"

// StorageUnavailable is the 503 for an object store that does not answer.
func StorageUnavailable(err error) error {
	e := apperr.New(apperr.KindUnavailable, CodeStorageUnavailable, "Report storage is unavailable; try again shortly")
	e.Err = err
	return e
}

// codeEncoding is RFC 4648 base32: upper case and digits, nothing a
// reader confuses with punctuation when typing a code off paper.
var codeEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// codeLen is 15 random bytes (120 bits) in base32.
const codeLen = 24

// NewCode is a fresh, unguessable verification code.
func NewCode() string {
	var b [15]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return codeEncoding.EncodeToString(b[:])
}

// ValidCode reports whether s has a code's shape.
func ValidCode(s string) bool {
	if len(s) != codeLen {
		return false
	}
	_, err := codeEncoding.DecodeString(s)
	return err == nil
}
