package postgres_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/eventually"
	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/services/customer/internal/customer"
	"github.com/kycfield/kyc/services/customer/internal/importer"
)

// importFile is n rows, each its own customer, plus a bad row (row 3).
func importFile(n int) string {
	var b strings.Builder
	b.WriteString("firstName,lastName,phone,loanId,address1_streetName,address1_city,address1_state\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "Ngozi,Okafor,+23480%08d,LN-%d,Allen Avenue,Ikeja,Lagos\n", i, i)
		if i == 0 {
			b.WriteString("N,Okafor,+2348099999999,,Allen Avenue,Ikeja,Lagos\n")
		}
	}
	return b.String()
}

// TestImportResumesAfterAStopAndCreatesEachRowOnce: a job stopped half
// way (workers told to stop, and a row's transaction rolled back as by a
// crash) is finished by fresh workers, two at once, with every valid row
// created exactly once; the same file again is the same job, a second
// start changes nothing, and a row that became a duplicate after the
// check fails alone.
func TestImportResumesAfterAStopAndCreatesEachRowOnce(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.svc.WithImports(f.store)
	ctx := context.Background()
	who := customer.Caller{OrgID: "org_imp", Env: "test"}
	const n = 200
	im, existing, err := f.svc.ValidateImport(as(who), who, "batch.csv", strings.NewReader(importFile(n)))
	if err != nil || existing {
		t.Fatal(err, existing)
	}
	if im.ValidRows != n || im.TotalRows != n+1 || len(im.Problems) != 1 || im.Problems[0].Row != 3 {
		t.Fatalf("validated %+v", im)
	}
	again, existing, err := f.svc.ValidateImport(as(who), who, "copy.csv", strings.NewReader(importFile(n)))
	if err != nil || !existing || again.ID != im.ID {
		t.Fatalf("same file again: %v %v %s", err, existing, again.ID)
	}
	if _, _, err := f.svc.StartImport(as(who), who, im.ID, n-1); !apperr.IsCode(err, customer.CodeImportRowsMismatch) {
		t.Fatalf("start with the wrong count: %v", err)
	}
	// Row 10 (LN-8) becomes a duplicate after the check.
	if _, err := f.svc.Create(as(who), who, input("+2348111111111", func(in *customer.CreateInput) { in.LoanID.V, in.LoanID.Set = "LN-8", true })); err != nil {
		t.Fatal(err)
	}
	if _, started, err := f.svc.StartImport(as(who), who, im.ID, n); err != nil || !started {
		t.Fatal(err, started)
	}
	if _, started, err := f.svc.StartImport(as(who), who, im.ID, n); err != nil || started {
		t.Fatal("second start", err, started)
	}

	// First worker: stopped once some rows are in.
	wctx, stop := context.WithCancel(ctx)
	w := &importer.Worker{Service: f.svc, Pool: f.pool, Poll: 50 * time.Millisecond, Log: logging.Discard()}
	done := make(chan error, 1)
	go func() { done <- w.Run(wctx) }()
	eventually.True(t, 20*time.Second, "some rows created", func() bool {
		got, _ := f.svc.GetImport(ctx, who, im.ID)
		return got.CreatedRows >= 20
	})
	stop()
	<-done
	// A crash inside a row's transaction: claimed, then rolled back.
	tx, err := f.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `UPDATE import_rows SET state = 'CREATED' WHERE state = 'PENDING' AND row = (SELECT min(row) FROM import_rows WHERE state = 'PENDING')`); err != nil {
		t.Fatal(err)
	}
	_ = tx.Rollback(ctx)
	mid, _ := f.svc.GetImport(ctx, who, im.ID)
	if mid.Status != customer.ImportRunning {
		t.Fatalf("stopped half way: %+v", mid)
	}

	// Two fresh workers finish it.
	wctx, stop = context.WithCancel(ctx)
	defer stop()
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); _ = w.Run(wctx) }()
	}
	final := eventually.Value(t, 60*time.Second, "the import completed", func() (customer.Import, bool) {
		got, _ := f.svc.GetImport(ctx, who, im.ID)
		return got, got.Status == customer.ImportCompleted
	})
	stop()
	wg.Wait()
	if final.CreatedRows != n-1 || final.FailedRows != 1 {
		t.Fatalf("created %d failed %d, want %d and 1", final.CreatedRows, final.FailedRows, n-1)
	}
	var customers, distinct, events int
	if err := f.pool.QueryRow(ctx, `SELECT count(*), count(DISTINCT loan_id) FROM customers WHERE org_id = $1`, who.OrgID).Scan(&customers, &distinct); err != nil {
		t.Fatal(err)
	}
	if customers != n || distinct != n { // n-1 imported and the one created by hand
		t.Fatalf("customers %d distinct loans %d, want %d", customers, distinct, n)
	}
	if err := f.pool.QueryRow(ctx, `SELECT count(*) FROM outbox WHERE payload::text LIKE '%customer.created%'`).Scan(&events); err != nil {
		t.Fatal(err)
	}
	if events != n {
		t.Fatalf("customer.created events %d, want %d", events, n)
	}
	rows, err := f.svc.ImportRows(ctx, who, im.ID)
	if err != nil {
		t.Fatal(err)
	}
	results := string(customer.ImportResults(final, rows))
	if !strings.Contains(results, "\n3,INVALID,,VALIDATION_ERROR: firstName must be 2-50 characters\n") ||
		!strings.Contains(results, "\n11,FAILED,,DUPLICATE_CUSTOMER") || strings.Count(results, ",CREATED,cus_") != n-1 {
		t.Fatalf("results:\n%s", results[:min(len(results), 600)])
	}
	// Another organization sees nothing of it.
	if _, err := f.svc.GetImport(ctx, customer.Caller{OrgID: "org_other", Env: "test"}, im.ID); !apperr.IsCode(err, apperr.CodeNotFound) {
		t.Fatalf("other org: %v", err)
	}
	if _, err := f.svc.GetImport(ctx, customer.Caller{OrgID: who.OrgID, Env: "live"}, im.ID); !apperr.IsCode(err, apperr.CodeNotFound) {
		t.Fatalf("live: %v", err)
	}
}

// TestDailyResultsCountsDecidedCustomersPerUTCDay: by the day of their
// final status, zeros for quiet days, deleted and other tenants' not
// counted.
func TestDailyResultsCountsDecidedCustomersPerUTCDay(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ctx := context.Background()
	who := customer.Caller{OrgID: "org_daily", Env: "test"}
	now := time.Now().UTC()
	decide := func(phone, status string, at time.Time, org string) string {
		c, err := f.svc.Create(as(customer.Caller{OrgID: org, Env: "test"}), customer.Caller{OrgID: org, Env: "test"}, input(phone, nil))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.pool.Exec(ctx, `UPDATE customers SET status = $2, verification_date = $3 WHERE id = $1`, c.ID, status, at); err != nil {
			t.Fatal(err)
		}
		return c.ID
	}
	decide("+2348100000001", customer.StatusVerified, now, who.OrgID)
	decide("+2348100000002", customer.StatusVerified, now, who.OrgID)
	decide("+2348100000003", customer.StatusRejected, now.AddDate(0, 0, -2), who.OrgID)
	decide("+2348100000004", customer.StatusVerified, now.AddDate(0, 0, -40), who.OrgID) // before the window
	decide("+2348100000005", customer.StatusVerified, now, "org_other")
	gone := decide("+2348100000006", customer.StatusVerified, now, who.OrgID)
	if err := f.svc.Delete(as(who), who, gone); err != nil {
		t.Fatal(err)
	}
	days, err := f.svc.DailyResults(ctx, who, 30)
	if err != nil {
		t.Fatal(err)
	}
	if len(days) != 30 || days[29].Date != now.Format(time.DateOnly) {
		t.Fatalf("%d days, last %+v", len(days), days[len(days)-1])
	}
	if days[29].Verified != 2 || days[29].Rejected != 0 || days[27].Rejected != 1 || days[28] != (customer.Day{Date: days[28].Date}) {
		t.Fatalf("series end %+v", days[26:])
	}
}
