package customer

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/ids"
)

// The commands: what a lender does to its customers through the API,
// each validated here and applied in one transaction with its event.

const maxDocumentsOnCreate = 20

// Create validates and records a customer and starts its verification.
func (s *Service) Create(ctx context.Context, who Caller, in CreateInput) (Customer, error) {
	c, err := s.Check(who, in)
	if err != nil {
		return Customer{}, err
	}
	audit := &Audit{Action: ActionCreate, Target: c.ID, Details: map[string]any{"addresses": len(c.Addresses), "documents": len(c.Documents)}}
	if c.RelogReason != "" {
		audit.Details["relog"] = true
	}
	err = s.store.Atomic(ctx, func(tx Tx) error { return insertNew(ctx, tx, who, c, audit) })
	return c, err
}

// Check validates a new customer and returns it as it would be recorded
// (with fresh ids), or the validation error naming every problem. It
// reads nothing: the bulk import checks every row of a file with it
// before anything is created, by the very rules Create applies.
func (s *Service) Check(who Caller, in CreateInput) (Customer, error) {
	now := s.now().UTC()
	c := Customer{ID: ids.New("cus"), OrgID: who.OrgID, Env: who.Env, Status: StatusPending,
		SubmittedAt: now, CreatedAt: now, UpdatedAt: now, Addresses: []Address{}, Documents: []Document{}}
	var ck apperr.Checker
	personal(&ck, &c, in.Fields, true)
	if in.Addresses.Has() {
		if n := len(in.Addresses.V); n < 1 || n > MaxAddresses {
			ck.Fail("addresses", "must contain 1 to %d addresses", MaxAddresses)
		}
		for i, ai := range in.Addresses.V {
			a := checkAddress(&ck, ai, fmt.Sprintf("addresses[%d].", i))
			a.ID, a.CreatedAt, a.UpdatedAt = ids.New("adr"), now, now
			c.Addresses = append(c.Addresses, a)
		}
	}
	if in.Documents.Has() {
		if len(in.Documents.V) > maxDocumentsOnCreate {
			ck.Fail("documents", "must contain at most %d documents", maxDocumentsOnCreate)
		}
		for i, di := range in.Documents.V {
			d := checkDocument(&ck, di, fmt.Sprintf("documents[%d].", i), who.Env)
			d.ID, d.UploadedAt = ids.New("doc"), now
			c.Documents = append(c.Documents, d)
		}
	}
	if in.RelogReason.Has() {
		r, msg := cleanText(in.RelogReason.V, maxRelogReason, true)
		if msg == "" && r == "" {
			msg = "must be a non-empty string"
		}
		if msg != "" {
			ck.Fail("relogReason", "%s", msg)
		}
		c.RelogReason = r
	}
	return c, ck.Err()
}

// insertNew records a checked customer in tx: the duplicate rule, the
// sandbox record limit, the row and its event, with audit when a caller
// (not an import job) made it.
func insertNew(ctx context.Context, tx Tx, who Caller, c Customer, audit *Audit) error {
	keys := identity(c, nil)
	if err := tx.LockIdentity(ctx, c.OrgID, c.Env, keys); err != nil {
		return err
	}
	if c.RelogReason == "" {
		if err := checkDuplicates(ctx, tx, c, keys); err != nil {
			return err
		}
	}
	if err := tx.Insert(ctx, c); err != nil {
		return err
	}
	if err := tx.Emit(ctx, Change{Type: EventCreated, Customer: c, Audit: audit}); err != nil {
		return err
	}
	// Counted last: the total's row, on which the limit is checked, stays
	// locked until the transaction ends, and every creation of the
	// organization's environment waits for it. Taken here, it is held for
	// the commit alone, not through the row's and the event's inserts; at
	// the limit, the rollback undoes them.
	limit := 0
	if who.Env == EnvTest {
		limit = who.RecordLimit
	}
	ok, err := tx.CountCreated(ctx, c.OrgID, c.Env, c.ID, c.Status, limit)
	if err != nil {
		return err
	}
	if !ok {
		return apperr.New(apperr.KindForbidden, CodePlanLimitExceeded,
			fmt.Sprintf("Your plan allows at most %d sandbox customer records; delete some or upgrade your plan", limit))
	}
	return nil
}

func checkDuplicates(ctx context.Context, tx Tx, c Customer, keys map[string]string) error {
	if len(keys) == 0 {
		return nil
	}
	dups, err := tx.FindDuplicates(ctx, c.OrgID, c.Env, keys, c.ID)
	if err != nil || len(dups) == 0 {
		return err
	}
	return DuplicateError(dups)
}

// DuplicateError names every matching field and the customer holding it.
func DuplicateError(dups []Duplicate) error {
	details := make([]apperr.Detail, 0, len(dups))
	var fields []string
	for _, d := range dups {
		details = append(details, apperr.Detail{Field: d.Field, Message: "matches an existing customer", ExistingID: d.CustomerID})
		if !slices.Contains(fields, d.Field) {
			fields = append(fields, d.Field)
		}
	}
	return &apperr.Error{Kind: apperr.KindInvalid, Code: CodeDuplicate,
		Message: fmt.Sprintf(duplicateMessageTemplate, strings.Join(fields, ", ")), Details: details}
}

// Get returns a live customer of the caller.
func (s *Service) Get(ctx context.Context, who Caller, id string) (Customer, error) {
	if !ids.Valid("cus", id) {
		return Customer{}, ErrNotFound
	}
	return s.store.Get(ctx, who.OrgID, who.Env, id)
}

// Status reads a customer's verification status: what lenders poll, so
// it reads only what the status shows (Store.Status). It is not found
// exactly when Get is not.
func (s *Service) Status(ctx context.Context, who Caller, id string) (Customer, error) {
	if !ids.Valid("cus", id) {
		return Customer{}, ErrNotFound
	}
	return s.store.Status(ctx, who.OrgID, who.Env, id)
}

// Update changes personal details; addresses and documents are not
// touched. Changing phone, email or loanId to a value another live
// customer holds is refused.
func (s *Service) Update(ctx context.Context, who Caller, id string, in Fields) (Customer, error) {
	// Validate before the lookup, so a bad body is a 400 whatever the id.
	// Validation depends on the input only, so applying it below cannot fail.
	var ck apperr.Checker
	personal(&ck, &Customer{}, in, false)
	if err := ck.Err(); err != nil {
		return Customer{}, err
	}
	return s.change(ctx, who, id, func(tx Tx, c *Customer) error {
		changed := personal(&apperr.Checker{}, c, in, false)
		if len(changed) == 0 {
			return nil
		}
		keys := identity(*c, changed)
		if err := tx.LockIdentity(ctx, c.OrgID, c.Env, keys); err != nil {
			return err
		}
		if err := checkDuplicates(ctx, tx, *c, keys); err != nil {
			return err
		}
		c.UpdatedAt = s.now().UTC()
		if err := tx.UpdatePersonal(ctx, *c); err != nil {
			return err
		}
		return tx.Emit(ctx, Change{Type: EventUpdated, Customer: *c, Changed: changed,
			Audit: &Audit{Action: ActionUpdate, Target: c.ID, Details: map[string]any{"fields": changed}}})
	})
}

// change runs fn on the caller's live customer id, locked, in one
// transaction; unknown, malformed, deleted and foreign ids are not found.
func (s *Service) change(ctx context.Context, who Caller, id string, fn func(tx Tx, c *Customer) error) (Customer, error) {
	if !ids.Valid("cus", id) {
		return Customer{}, ErrNotFound
	}
	var c Customer
	err := s.store.Atomic(ctx, func(tx Tx) (err error) {
		if c, err = tx.Get(ctx, who.OrgID, who.Env, id, true, false); err != nil {
			return err
		}
		return fn(tx, &c)
	})
	return c, err
}

// Delete soft-deletes a customer: it leaves lists, counts and the
// duplicate check, and its open verification work is cancelled.
func (s *Service) Delete(ctx context.Context, who Caller, id string) error {
	_, err := s.change(ctx, who, id, func(tx Tx, c *Customer) error {
		now := s.now().UTC()
		c.DeletedAt, c.UpdatedAt = &now, now
		if err := tx.SoftDelete(ctx, *c); err != nil {
			return err
		}
		if err := tx.CountDeleted(ctx, c.OrgID, c.Env, c.ID, c.Status); err != nil {
			return err
		}
		return tx.Emit(ctx, Change{Type: EventDeleted, Customer: *c, Audit: &Audit{Action: ActionDelete, Target: c.ID}})
	})
	return err
}

// AddAddress appends one address for verification.
func (s *Service) AddAddress(ctx context.Context, who Caller, id string, in AddressInput) (Customer, error) {
	var ck apperr.Checker
	a := checkAddress(&ck, in, "")
	if err := ck.Err(); err != nil {
		return Customer{}, err
	}
	return s.change(ctx, who, id, func(tx Tx, c *Customer) error {
		if len(c.Addresses) >= MaxAddresses {
			return apperr.New(apperr.KindInvalid, CodeAddressLimit, fmt.Sprintf("A customer may hold at most %d addresses", MaxAddresses))
		}
		now := s.now().UTC()
		a.ID, a.CreatedAt, a.UpdatedAt = ids.New("adr"), now, now
		if err := tx.InsertAddress(ctx, *c, a, len(c.Addresses)); err != nil {
			return err
		}
		c.Addresses = append(c.Addresses, a)
		c.UpdatedAt = now
		return tx.Emit(ctx, Change{Type: EventAddressAdded, Customer: *c, Address: &a,
			Audit: &Audit{Action: ActionAddressAdd, Target: a.ID, Details: map[string]any{"customerId": c.ID}}})
	})
}
