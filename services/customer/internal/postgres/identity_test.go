package postgres_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/optional"
	"github.com/kycfield/kyc/services/customer/internal/customer"
)

// Concurrent creates spelling one loanId and one email differently (the
// dodges of issue 31) lock and compare the same keys: exactly one
// customer holds them, and the stored keys are what the unique indexes
// check.
func TestConcurrentSpellingsOfOneIdentityYieldOneCustomer(t *testing.T) {
	t.Parallel()
	f := setup(t)
	who := customer.Caller{OrgID: "org_a", Env: "test"}
	loans := []string{"LN-2026/0042", "ln-2026/0042", "LN-20\u200b26/0042", "LN\uff0d2026/0042", "LN\u20132026/0042", "ＬＮ-2026/0042"}
	emails := []string{"ngozi@example.com", "Ngozi@Example.com", "ngo\u200bzi@example.com", "ｎｇｏｚｉ@example.com"}
	for _, field := range []string{"loanId", "email"} {
		var wg sync.WaitGroup
		var mu sync.Mutex
		codes := map[string]int{}
		n := len(loans)
		if field == "email" {
			n = len(emails)
		}
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				in := input(fmt.Sprintf("+23480300%s%04d", map[string]string{"loanId": "1", "email": "2"}[field], i), func(in *customer.CreateInput) {
					if field == "loanId" {
						in.LoanID = optional.Of(loans[i])
					} else {
						in.Email = optional.Of(emails[i])
					}
				})
				_, err := f.svc.Create(as(who), who, in)
				code := "OK"
				if e, ok := apperr.As(err); ok {
					code = e.Code
				} else if err != nil {
					code = err.Error()
				}
				mu.Lock()
				codes[code]++
				mu.Unlock()
			}()
		}
		wg.Wait()
		if codes["OK"] != 1 || codes[customer.CodeDuplicate] != n-1 {
			t.Fatalf("%s: outcomes %v", field, codes)
		}
	}
	var loanKey, emailKey string
	if err := f.pool.QueryRow(context.Background(), `SELECT max(loan_key), max(email_key) FROM customers`).Scan(&loanKey, &emailKey); err != nil {
		t.Fatal(err)
	}
	if loanKey != "ln-2026/0042" || emailKey != "ngozi@example.com" {
		t.Fatalf("stored keys %q %q", loanKey, emailKey)
	}
	// The unique index itself refuses a second holder, whatever the
	// service checked (the backstop behind the advisory locks).
	_, err := f.pool.Exec(context.Background(), `INSERT INTO customers (id, org_id, env, first_name, last_name, phone, loan_id, loan_key,
		status, submitted_at, created_at, updated_at, search_text)
		VALUES ('cus_x', 'org_a', 'test', 'A', 'B', '+2348039999999', 'x', 'ln-2026/0042', 'PENDING', now(), now(), now(), '')`)
	if err == nil {
		t.Fatal("a second live holder of a loan key was stored")
	}
}

// A customer the backfill left without a key (it shared it with an older
// customer before keys existed) may still change its other details; a
// change of its loanId is checked like any other.
func TestAnUnkeyedDuplicateCanStillBeUpdated(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ctx := context.Background()
	who := customer.Caller{OrgID: "org_a", Env: "test"}
	first, err := f.svc.Create(as(who), who, input("+2348031110001", func(in *customer.CreateInput) { in.LoanID = optional.Of("LN-7") }))
	if err != nil {
		t.Fatal(err)
	}
	second, err := f.svc.Create(as(who), who, input("+2348031110002", func(in *customer.CreateInput) { in.LoanID = optional.Of("LN-8") }))
	if err != nil {
		t.Fatal(err)
	}
	// As an older release left it: the same loan under another spelling, no key.
	if _, err := f.pool.Exec(ctx, `UPDATE customers SET loan_id = 'ln-7', loan_key = NULL WHERE id = $1`, second.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Update(as(who), who, second.ID, customer.Fields{Occupation: optional.Of("Tailor")}); err != nil {
		t.Fatalf("updating another field: %v", err)
	}
	_, err = f.svc.Update(as(who), who, second.ID, customer.Fields{LoanID: optional.Of("LN\u20137")})
	if e, ok := apperr.As(err); !ok || e.Code != customer.CodeDuplicate || e.Details[0].ExistingID != first.ID {
		t.Fatalf("changing its loanId to the first's: %v", err)
	}
}
