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
func (s *Service) ApplyAddressUpdate(ctx context.Context, tx Tx, u AddressUpdate) (bool, error) {
	if !slices.Contains([]string{AddressPending, AddressAssigned, AddressInProgress, AddressVerified, AddressRejected, AddressCancelled}, u.Status) {
		return false, apperr.Validation(apperr.Detail{Field: "status", Message: "unknown address status " + u.Status})
	}
	if u.OverallStatus != "" && !slices.Contains(CustomerStatuses, u.OverallStatus) {
		return false, apperr.Validation(apperr.Detail{Field: "overallStatus", Message: "unknown overall status " + u.OverallStatus})
	}
	c, err := tx.Get(ctx, u.OrgID, u.Env, u.CustomerID, true, true)
	if apperr.IsCode(err, apperr.CodeNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	i := slices.IndexFunc(c.Addresses, func(a Address) bool { return a.ID == u.AddressID })
	if i < 0 || u.Sequence <= c.Addresses[i].Sequence {
		return false, nil
	}
	a := &c.Addresses[i]
	a.Status, a.Sequence, a.UpdatedAt = u.Status, u.Sequence, s.now().UTC()
	if len(u.VerificationData) > 0 {
		a.VerificationData = u.VerificationData
	}
	if err := tx.UpdateAddress(ctx, c, *a); err != nil {
		return false, err
	}
	next, verifiedAt := u.OverallStatus, u.VerificationDate
	if next == "" {
		// An event published before verification announced the overall
		// status (in flight during the upgrade): the address is applied,
		// and the customer's status waits for the next event.
		next, verifiedAt = c.Status, c.VerificationDate
	}
	return true, s.restatus(ctx, tx, &c, next, verifiedAt)
}

// restatus records the customer's overall status and verification date
// as the verification context reports them, with the counters.
func (s *Service) restatus(ctx context.Context, tx Tx, c *Customer, next string, verifiedAt *time.Time) error {
	if next != c.Status && c.DeletedAt == nil {
		if err := tx.CountMoved(ctx, c.OrgID, c.Env, c.Status, next); err != nil {
			return err
		}
	}
	if verifiedAt != nil {
		at := verifiedAt.UTC()
		verifiedAt = &at
	}
	c.Status, c.VerificationDate, c.UpdatedAt = next, verifiedAt, s.now().UTC()
	return tx.UpdateStatus(ctx, *c)
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
