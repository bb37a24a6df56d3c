package customer

import (
	"context"
	"slices"
	"time"

	"github.com/kycfield/kyc/pkg/apperr"
)

// The projections: what other contexts announce about a customer, kept on
// the customer in the consumer's transaction, so that every read a lender
// makes of a customer (the customer, its status, its documents, its report
// address) is served from this one record and agrees with the lender's
// own last write.

// AddressUpdate is a verification outcome for one address, with the
// customer's overall status and verification date as the verification
// context (their one owner) worked them out after it.
type AddressUpdate struct {
	OrgID, Env, CustomerID, AddressID, Status string
	VerificationData                          []byte
	Sequence                                  int64
	OccurredAt                                time.Time
	OverallStatus                             string
	VerificationDate                          *time.Time
}

// ApplyAddressUpdate moves an address to the status the verification
// context reports, and the customer to the overall status it reports, in
// the caller's transaction. Updates older than the last applied one (by
// sequence) are ignored, so replays and reordering change nothing. It
// reports whether anything changed.
//
// It is the busiest write of the service (every transition of every
// address, at the pipeline's rate), so it locks and reads only the
// customer's status and applies the rest in one statement: loading the
// whole customer (addresses, documents, decrypting BVN/NIN) for it cost
// the status read its lag at 60 new customers a second (BENCHMARKS §3a).
func (s *Service) ApplyAddressUpdate(ctx context.Context, tx Tx, u AddressUpdate) (bool, error) {
	if !slices.Contains([]string{AddressPending, AddressAssigned, AddressInProgress, AddressInReview, AddressVerified, AddressRejected, AddressCancelled}, u.Status) {
		return false, apperr.Validation(apperr.Detail{Field: "status", Message: "unknown address status " + u.Status})
	}
	if u.OverallStatus != "" && !slices.Contains(CustomerStatuses, u.OverallStatus) {
		return false, apperr.Validation(apperr.Detail{Field: "overallStatus", Message: "unknown overall status " + u.OverallStatus})
	}
	now, err := tx.LockStatus(ctx, u.OrgID, u.Env, u.CustomerID)
	if apperr.IsCode(err, apperr.CodeNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	m := Move{CustomerID: u.CustomerID, AddressID: u.AddressID, Status: u.Status, VerificationData: u.VerificationData,
		Sequence: u.Sequence, At: s.now().UTC(), CustomerStatus: u.OverallStatus, VerificationDate: u.VerificationDate}
	if m.CustomerStatus == "" {
		// An event published before verification announced the overall
		// status (in flight during the upgrade): the address is applied,
		// and the customer's status waits for the next event.
		m.CustomerStatus, m.VerificationDate = now.Status, now.VerificationDate
	}
	if m.VerificationDate != nil {
		at := m.VerificationDate.UTC()
		m.VerificationDate = &at
	}
	if m.CustomerStatus != now.Status && !now.Deleted {
		m.CountFrom = now.Status
	}
	return tx.MoveAddress(ctx, u.OrgID, u.Env, m)
}

// StatusNow is a customer's status as locked by Tx.LockStatus.
type StatusNow struct {
	Status           string
	VerificationDate *time.Time
	Deleted          bool
}

// Move is one address transition with the customer's status after it.
type Move struct {
	CustomerID, AddressID, Status string
	VerificationData              []byte // nil keeps the address's last
	Sequence                      int64
	At                            time.Time
	CustomerStatus                string
	VerificationDate              *time.Time
	// CountFrom, when set, is the status whose counter the customer
	// leaves for CustomerStatus's.
	CountFrom string
}

// ApplyDocumentAdded records on the customer a document the document
// context reports appended (document.added), in the caller's transaction,
// so that GET /api/v1/customers/{id} and the status endpoint list it with
// the documents sent at creation. A document already recorded (a
// redelivery) or a customer unknown or deleted here changes nothing. It
// reports whether anything changed. No event is published: the document
// context already published this fact, and the contexts that show
// documents read it there.
func (s *Service) ApplyDocumentAdded(ctx context.Context, tx Tx, orgID, env, customerID string, d Document) (bool, error) {
	if d.ID == "" || !slices.Contains(DocumentTypes, d.DocumentType) {
		return false, apperr.Validation(apperr.Detail{Field: "document", Message: "document without id or with an unknown documentType"})
	}
	c, err := tx.Get(ctx, orgID, env, customerID, true, false)
	if apperr.IsCode(err, apperr.CodeNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if slices.ContainsFunc(c.Documents, func(x Document) bool { return x.ID == d.ID }) {
		return false, nil
	}
	return true, tx.InsertDocument(ctx, c, d, len(c.Documents))
}

// ApplyReportGenerated sets reportUrl once the reporting context has
// stored a report of the customer (report.generated). The URL names the
// newest version whatever the version, so redeliveries and reordering
// change nothing.
func (s *Service) ApplyReportGenerated(ctx context.Context, tx Tx, orgID, env, customerID, url string) error {
	if customerID == "" || url == "" {
		return apperr.Validation(apperr.Detail{Field: "reportUrl", Message: "report.generated without customerId or reportUrl"})
	}
	_, err := tx.SetReportURL(ctx, orgID, env, customerID, url)
	return err
}
