package document

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/ids"
)

// Customer is the read model's view of a customer of the customer
// context: enough to know it exists, whose it is and whether it is gone.
type Customer struct {
	ID, OrgID, Env string
	Deleted        bool
}

// Repository keeps documents and the customer read model.
type Repository interface {
	// Room returns ErrCustomerNotFound unless the customer is the
	// caller's and alive, and errLimit when it has no room left.
	Room(ctx context.Context, who Caller, customerID string) error
	// Add records d when its customer (d's org and environment) is alive
	// and has fewer than MaxPerCustomer documents, atomically: concurrent
	// adds never go over the limit. The caller's ActionUpload goes to the
	// organization's audit log in the same transaction.
	Add(ctx context.Context, d Document) error
	// Announce records that an object is about to be written under key,
	// so that it is removed later if Add never records it (a crash between
	// the two); Add withdraws the announcement in its transaction.
	Announce(ctx context.Context, key string) error
	List(ctx context.Context, who Caller, customerID string) ([]Document, error)
	Get(ctx context.Context, who Caller, customerID, docID string) (Document, error)
}

// Tx is the customer read model inside a consumer's transaction.
type Tx interface {
	SaveCustomer(ctx context.Context, c Customer) error
}

// Files keeps hosted files (the object store).
type Files interface {
	// PutSized stores exactly size bytes of r (the size is known: the
	// file was spooled or encoded first).
	PutSized(ctx context.Context, key string, r io.Reader, size int64, contentType string) (int64, error)
	Get(ctx context.Context, key string) (io.ReadCloser, error)
	Remove(ctx context.Context, key string)
}

// ActionUpload is what the organization's audit log (pkg/orgaudit) calls
// adding a document, a file or a link, by a member or a key.
const ActionUpload = "document.upload"

// UploadDetails are what the audit log keeps of an added document: its
// customer, its type and whether the file is hosted here. Never the
// file, its name or its URL, which may carry personal data.
func UploadDetails(d Document) map[string]any {
	return map[string]any{"customerId": d.CustomerID, "type": d.DocumentType, "hosted": d.Hosted}
}

// Service holds the document use cases.
type Service struct {
	repo      Repository
	files     Files
	now       func() time.Time
	customers Customers
}

// Customers says whether a customer is there for a caller as the
// customer context, the owner of deletes, sees it at this moment: this
// context's own copy learns of a delete only through an event, and a
// lender who deleted a customer must not read or add its documents a
// moment later.
type Customers interface {
	Exists(ctx context.Context, orgID, env, customerID string) (bool, error)
}

// AskCustomers makes every request about a customer check with c first.
func (s *Service) AskCustomers(c Customers) { s.customers = c }

// live is nil when the customer context has the caller's customer, and
// ErrCustomerNotFound when it has not.
func (s *Service) live(ctx context.Context, who Caller, customerID string) error {
	if s.customers == nil || !ids.Valid("cus", customerID) {
		return nil // the repository answers for malformed ids
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

// NewService builds a Service.
func NewService(repo Repository, files Files, now func() time.Time) *Service {
	return &Service{repo: repo, files: files, now: now}
}

// AddLink records a document the client hosts; its URL is never fetched.
func (s *Service) AddLink(ctx context.Context, who Caller, customerID string, in LinkInput) (Document, error) {
	d, err := CheckLink(in, who.Env)
	if err != nil {
		return Document{}, err
	}
	if err := s.live(ctx, who, customerID); err != nil {
		return Document{}, err
	}
	d.ID, d.CustomerID, d.OrgID, d.Env, d.UploadedAt = ids.New("doc"), customerID, who.OrgID, who.Env, s.now().UTC()
	if err := s.repo.Add(ctx, d); err != nil {
		return Document{}, err
	}
	return d, nil
}

// CanAdd tells early (before a file is read) whether the customer exists
// for the caller and has room; Add checks again atomically.
func (s *Service) CanAdd(ctx context.Context, who Caller, customerID string) error {
	if err := s.repo.Room(ctx, who, customerID); err != nil {
		return err
	}
	return s.live(ctx, who, customerID)
}

// File is a checked, optimised file ready to be stored.
type File struct {
	Body         io.Reader
	Size         int64 // stored bytes
	OriginalSize int64
	SHA256       string // of the stored bytes
	ContentType  string
	Ext          string
	Name         string // as the client named it
}

// AddFile stores f under the customer's prefix and records it. A store
// failure is STORAGE_UNAVAILABLE with nothing recorded; a refused record
// removes the stored object, and an object whose record never commits
// (a crash, a failed removal) is swept later (Announce).
func (s *Service) AddFile(ctx context.Context, who Caller, customerID, documentType string, f File) (Document, error) {
	d := Document{ID: ids.New("doc"), CustomerID: customerID, OrgID: who.OrgID, Env: who.Env, DocumentType: documentType,
		FileName: UploadName(f.Name, f.Ext), FileType: f.ContentType, FileSize: f.Size, Hosted: true,
		UploadedAt: s.now().UTC(), OriginalSize: f.OriginalSize, SHA256: f.SHA256}
	d.ObjectKey = who.OrgID + "/" + who.Env + "/" + customerID + "/" + d.ID + f.Ext
	if f.Size > MaxStored {
		return Document{}, apperr.New(apperr.KindTooLarge, CodeFileTooLarge, "The optimised file is too large to store")
	}
	if err := s.repo.Announce(ctx, d.ObjectKey); err != nil {
		return Document{}, err
	}
	n, err := s.files.PutSized(ctx, d.ObjectKey, f.Body, f.Size, f.ContentType)
	if err != nil {
		s.files.Remove(ctx, d.ObjectKey)
		return Document{}, StorageUnavailable(err)
	}
	if n != f.Size {
		s.files.Remove(ctx, d.ObjectKey)
		return Document{}, StorageUnavailable(errors.New("stored size differs from the file's"))
	}
	if err := s.repo.Add(ctx, d); err != nil {
		s.files.Remove(ctx, d.ObjectKey)
		return Document{}, err
	}
	return d, nil
}

// List returns the customer's documents, oldest first.
func (s *Service) List(ctx context.Context, who Caller, customerID string) ([]Document, error) {
	docs, err := s.repo.List(ctx, who, customerID)
	if err != nil {
		return nil, err
	}
	return docs, s.live(ctx, who, customerID)
}

// Open returns a hosted document of the caller's and its bytes.
func (s *Service) Open(ctx context.Context, who Caller, customerID, docID string) (Document, io.ReadCloser, error) {
	d, err := s.repo.Get(ctx, who, customerID, docID)
	if err != nil {
		return d, nil, err
	}
	if err := s.live(ctx, who, customerID); err != nil {
		return d, nil, err
	}
	if !d.Hosted {
		return d, nil, ErrNotFound
	}
	body, err := s.files.Get(ctx, d.ObjectKey)
	if err != nil {
		return d, nil, StorageUnavailable(err)
	}
	return d, body, nil
}

// CustomerCreated records a customer of the customer context.
func (s *Service) CustomerCreated(ctx context.Context, tx Tx, c Customer) error {
	if c.ID == "" || c.OrgID == "" || c.Env == "" {
		return apperr.Validation(apperr.Detail{Field: "customerId", Message: "customer event without id, organization or environment"})
	}
	return tx.SaveCustomer(ctx, c)
}

// CustomerDeleted marks a customer gone: its documents are 404 from now on.
func (s *Service) CustomerDeleted(ctx context.Context, tx Tx, c Customer) error {
	c.Deleted = true
	return s.CustomerCreated(ctx, tx, c)
}

// LimitReached is the error of a customer with no room left.
func LimitReached() error { return errLimit }
