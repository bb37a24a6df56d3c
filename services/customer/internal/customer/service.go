package customer

import (
	"context"
	"time"
)

// Caller is who acts, as established by the gateway.
type Caller struct {
	OrgID string
	Env   string // EnvTest or EnvLive
	// RecordLimit caps the sandbox customers not deleted (0 = unlimited).
	RecordLimit int
}

// Environments: sandbox and live data never meet. Sandbox accepts plain
// http document URLs and is subject to the plan's record limit.
const (
	EnvTest = "test"
	EnvLive = "live"
)

// Event types this context publishes.
const (
	EventCreated      = "customer.created"
	EventUpdated      = "customer.updated"
	EventDeleted      = "customer.deleted"
	EventAddressAdded = "address.added"
)

// Change is a domain event, published with the change it describes.
type Change struct {
	Type     string
	Customer Customer
	// Changed names the fields an update changed.
	Changed []string
	// Address is the appended address (address.added).
	Address *Address
	// Audit, when set, is the caller's action that made the change,
	// recorded with its event (nil for changes no caller made: an import
	// job's rows, other contexts' events).
	Audit *Audit
}

// Store is the persistence port.
type Store interface {
	Atomic(ctx context.Context, fn func(Tx) error) error
	// Get reads a live customer without a transaction.
	Get(ctx context.Context, orgID, env, id string) (Customer, error)
	// Status reads what a live customer's verification status shows
	// (its name, status, loan, report, addresses and documents) in one
	// snapshot, without a transaction; the other fields are left empty.
	Status(ctx context.Context, orgID, env, id string) (Customer, error)
	List(ctx context.Context, q ListQuery) (Page, error)
	// DailyResults counts the live customers that reached VERIFIED and
	// REJECTED per UTC day ("2006-01-02") since from.
	DailyResults(ctx context.Context, orgID, env string, from time.Time) (map[string][2]int64, error)
}

// Tx is what use cases do inside one transaction.
type Tx interface {
	// LockIdentity serialises writers of the same phone/email/loanId
	// (values are comparison keys: see identity) in
	// an organization and environment until the transaction ends.
	LockIdentity(ctx context.Context, orgID, env string, values map[string]string) error
	FindDuplicates(ctx context.Context, orgID, env string, values map[string]string, exceptID string) ([]Duplicate, error)
	// CountCreated adds a live customer (id, in status) to the counters;
	// it reports false (and changes nothing) when limit > 0 and the limit
	// is reached.
	CountCreated(ctx context.Context, orgID, env, id, status string, limit int) (bool, error)
	// CountDeleted takes a live customer (id, in status) off the counters.
	CountDeleted(ctx context.Context, orgID, env, id, status string) error

	Insert(ctx context.Context, c Customer) error
	// Get returns a customer; deleted ones only when withDeleted.
	Get(ctx context.Context, orgID, env, id string, forUpdate, withDeleted bool) (Customer, error)
	UpdatePersonal(ctx context.Context, c Customer) error
	// LockStatus locks a customer (deleted ones too) until the
	// transaction ends and reads its status.
	LockStatus(ctx context.Context, orgID, env, id string) (StatusNow, error)
	// MoveAddress applies m if its sequence is newer than the address's
	// last: the address, the customer's status and, with CountFrom, the
	// counters. It reports whether it applied m.
	MoveAddress(ctx context.Context, orgID, env string, m Move) (bool, error)
	SoftDelete(ctx context.Context, c Customer) error
	InsertAddress(ctx context.Context, c Customer, a Address, position int) error
	InsertDocument(ctx context.Context, c Customer, d Document, position int) error
	// SetReportURL records where the customer's newest report is; it
	// reports false for a customer it does not hold (other tenant, gone).
	SetReportURL(ctx context.Context, orgID, env, id, url string) (bool, error)
	Emit(ctx context.Context, ch Change) error
	ImportTx
}

// Service holds the customer use cases.
type Service struct {
	store   Store
	imports ImportStore
	now     func() time.Time
}

// NewService returns a Service.
func NewService(s Store, now func() time.Time) *Service { return &Service{store: s, now: now} }

// WithImports gives the service the bulk import's store.
func (s *Service) WithImports(st ImportStore) *Service {
	s.imports = st
	return s
}
