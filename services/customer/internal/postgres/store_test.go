package postgres_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/pkg/keyring"
	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/pkg/optional"
	"github.com/kycfield/kyc/pkg/outbox"
	"github.com/kycfield/kyc/pkg/pgtest"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/services/customer/internal/customer"
	"github.com/kycfield/kyc/services/customer/internal/customer/view"
	"github.com/kycfield/kyc/services/customer/internal/events"
	"github.com/kycfield/kyc/services/customer/internal/postgres"
	"github.com/kycfield/kyc/services/customer/migrations"
)

type fixture struct {
	pool  *pgxpool.Pool
	store *postgres.Store
	svc   *customer.Service
}

func setup(t *testing.T) fixture {
	t.Helper()
	pool, _ := pgtest.NewDB(t, migrations.Set(), outbox.Migration(), inbox.Migration())
	keys, err := keyring.Parse("k1:jSv7ih3Y8m8Zgui3cFjZHBJZGwcPPrL1k2W8ntQftE0=", "k1")
	if err != nil {
		t.Fatal(err)
	}
	store := postgres.New(pool, keys, "customer-events", events.Of)
	return fixture{pool: pool, store: store, svc: customer.NewService(store, time.Now)}
}

func input(phone string, extra func(*customer.CreateInput)) customer.CreateInput {
	in := customer.CreateInput{Fields: customer.Fields{
		FirstName: optional.Of("Ngozi"), LastName: optional.Of("Okafor"), Phone: optional.Of(phone)},
		Addresses: optional.Of([]customer.AddressInput{{StreetName: optional.Of("Allen Avenue"), City: optional.Of("Ikeja"), State: optional.Of("Lagos")}}),
	}
	if extra != nil {
		extra(&in)
	}
	return in
}

// as is the context of a request by who's organization's API key, as the
// gateway vouches for it: every change a caller makes is audited, and an
// audit needs an actor.
func as(who customer.Caller) context.Context {
	return principal.With(context.Background(), principal.Principal{Kind: principal.KindAPIKey, OrgID: who.OrgID,
		Env: principal.Env(who.Env), KeyID: "key_test", ClientIP: "203.0.113.9"})
}

func TestConcurrentCreatesOfOnePhoneYieldOneCustomer(t *testing.T) {
	t.Parallel()
	f := setup(t)
	who := customer.Caller{OrgID: "org_a", Env: "test"}
	const n = 20
	var wg sync.WaitGroup
	var mu sync.Mutex
	codes := map[string]int{}
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := f.svc.Create(as(who), who, input("+2348030000001", nil))
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
		t.Fatalf("outcomes: %v", codes)
	}
}

func TestRecordLimitHoldsUnderConcurrencyAndDeletionFreesASlot(t *testing.T) {
	t.Parallel()
	f := setup(t)
	who := customer.Caller{OrgID: "org_dev", Env: "test", RecordLimit: 50}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var ids []string
	limited := 0
	for i := range 60 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := f.svc.Create(as(who), who, input(fmt.Sprintf("+23481%08d", i), nil))
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				ids = append(ids, c.ID)
			case apperr.IsCode(err, customer.CodePlanLimitExceeded):
				limited++
			default:
				t.Errorf("create: %v", err)
			}
		}()
	}
	wg.Wait()
	if len(ids) != 50 || limited != 10 {
		t.Fatalf("created %d, limited %d", len(ids), limited)
	}
	// The limit applies to sandbox only.
	if _, err := f.svc.Create(as(customer.Caller{OrgID: "org_dev", Env: "live", RecordLimit: 50}), customer.Caller{OrgID: "org_dev", Env: "live", RecordLimit: 50}, input("+2349000000001", nil)); err != nil {
		t.Fatalf("live create counted against the sandbox limit: %v", err)
	}
	if err := f.svc.Delete(as(who), who, ids[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Create(as(who), who, input("+2349000000002", nil)); err != nil {
		t.Fatalf("slot not freed by deletion: %v", err)
	}
	if _, err := f.svc.Create(as(who), who, input("+2349000000003", nil)); !apperr.IsCode(err, customer.CodePlanLimitExceeded) {
		t.Fatalf("51st live record: %v", err)
	}
}

func TestBVNAndNINAreNeverStoredInClear(t *testing.T) {
	t.Parallel()
	f := setup(t)
	who := customer.Caller{OrgID: "org_pii", Env: "live"}
	c, err := f.svc.Create(as(who), who, input("+2348030000002", func(in *customer.CreateInput) {
		in.BVN, in.NIN = optional.Of("22212345678"), optional.Of("98765432109")
	}))
	if err != nil {
		t.Fatal(err)
	}
	var row, outboxRows string
	if err := f.pool.QueryRow(context.Background(), `SELECT row_to_json(c)::text FROM customers c WHERE id = $1`, c.ID).Scan(&row); err != nil {
		t.Fatal(err)
	}
	if err := f.pool.QueryRow(context.Background(), `SELECT string_agg(payload::text, ' ') FROM outbox`).Scan(&outboxRows); err != nil {
		t.Fatal(err)
	}
	var raw []byte
	if err := f.pool.QueryRow(context.Background(), `SELECT bvn_enc FROM customers WHERE id = $1`, c.ID).Scan(&raw); err != nil {
		t.Fatal(err)
	}
	for _, digits := range []string{"22212345678", "98765432109", "2221234", "8765432109"} {
		if strings.Contains(row, digits) || strings.Contains(outboxRows, digits) || strings.Contains(string(raw), digits) {
			t.Fatalf("%s found in clear (row %s, outbox %s)", digits, row, outboxRows)
		}
	}
	if keyring.KeyID(raw) != "k1" {
		t.Fatalf("ciphertext does not name its key: %q", keyring.KeyID(raw))
	}
	got, err := f.svc.Get(context.Background(), who, c.ID)
	if err != nil || got.BVN != "22212345678" || *view.Of(got).BVN != "***5678" || *view.Of(got).NIN != "***2109" {
		t.Fatalf("read back: %+v %v", got, err)
	}
	if !strings.Contains(outboxRows, "***5678") {
		t.Fatalf("event does not carry the masked BVN: %s", outboxRows)
	}
}

func TestVerificationEventsDriveStatusIdempotentlyAndInOrder(t *testing.T) {
	t.Parallel()
	f := setup(t)
	who := customer.Caller{OrgID: "org_v", Env: "test"}
	c, err := f.svc.Create(as(who), who, input("+2348030000003", func(in *customer.CreateInput) {
		in.Addresses.V = append(in.Addresses.V, in.Addresses.V[0])
	}))
	if err != nil {
		t.Fatal(err)
	}
	consumer := inbox.New("test", nil, f.pool, logging.Discard(), inbox.HandlerOf(events.Subscriptions(f.svc, f.store.Within), "customer.verification-status"))
	apply := func(addr string, seq int64, status, overall string, data string) event.Event {
		d := map[string]any{"customerId": c.ID, "addressId": addr, "status": status, "sequence": seq, "occurredAt": time.Now(),
			"overallStatus": overall}
		if overall == customer.StatusRejected {
			d["verificationDate"] = time.Now()
		}
		if data != "" {
			d["verificationData"] = json.RawMessage(data)
		}
		e, _ := event.New(events.TypeAddressUpdated, who.OrgID, who.Env, d)
		if err := consumer.Apply(context.Background(), e); err != nil {
			t.Fatalf("apply: %v", err)
		}
		return e
	}
	status := func() (string, []string) {
		got, err := f.svc.Get(context.Background(), who, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		var as []string
		for _, a := range got.Addresses {
			as = append(as, a.Status)
		}
		return got.Status, as
	}
	a0, a1 := c.Addresses[0].ID, c.Addresses[1].ID
	apply(a0, 1, "ASSIGNED", "IN_PROGRESS", "")
	if s, _ := status(); s != customer.StatusInProgress {
		t.Fatalf("after assignment: %s", s)
	}
	verified := apply(a0, 3, "VERIFIED", "IN_PROGRESS", `{"verifiedAddress":"12 Allen Avenue","verifiedLatitude":6.6,"verifiedLongitude":3.35}`)
	apply(a0, 2, "IN_PROGRESS", "IN_PROGRESS", "") // late and older: ignored
	if err := consumer.Apply(context.Background(), verified); err != nil {
		t.Fatal(err) // replay: no-op
	}
	if s, as := status(); s != customer.StatusInProgress || as[0] != "VERIFIED" || as[1] != "PENDING" {
		t.Fatalf("one address verified: %s %v", s, as)
	}
	// A result held for operations' review: not final, the customer stays IN_PROGRESS.
	apply(a1, 1, "IN_REVIEW", "IN_PROGRESS", "")
	if s, as := status(); s != customer.StatusInProgress || as[1] != "IN_REVIEW" {
		t.Fatalf("one address in review: %s %v", s, as)
	}
	apply(a1, 2, "REJECTED", "REJECTED", "")
	got, _ := f.svc.Get(context.Background(), who, c.ID)
	if got.Status != customer.StatusRejected || got.VerificationDate == nil || !strings.Contains(string(got.Addresses[0].VerificationData), "12 Allen Avenue") {
		t.Fatalf("final: %+v", got)
	}
	page, err := f.svc.List(context.Background(), customer.ListQuery{OrgID: who.OrgID, Env: who.Env, Page: 1, Limit: 10, Status: customer.StatusRejected})
	if err != nil || page.Total != 1 || len(page.Customers) != 1 {
		t.Fatalf("status filter/count: %+v %v", page, err)
	}
	page, _ = f.svc.List(context.Background(), customer.ListQuery{OrgID: who.OrgID, Env: who.Env, Page: 1, Limit: 10, Status: customer.StatusPending})
	if page.Total != 0 || len(page.Customers) != 0 {
		t.Fatalf("pending count not moved: %+v", page)
	}
}

func TestRelogBypassesDuplicatesAndDeletionReleasesValues(t *testing.T) {
	t.Parallel()
	f := setup(t)
	who := customer.Caller{OrgID: "org_r", Env: "test"}
	first, err := f.svc.Create(as(who), who, input("+2348030000004", func(in *customer.CreateInput) { in.LoanID = optional.Of("LN-1") }))
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.svc.Create(as(who), who, input("+2348030000004", nil))
	e, ok := apperr.As(err)
	if !ok || e.Code != customer.CodeDuplicate || len(e.Details) != 1 || e.Details[0].Field != "phone" || e.Details[0].ExistingID != first.ID {
		t.Fatalf("duplicate: %v %+v", err, e)
	}
	relog, err := f.svc.Create(as(who), who, input("+2348030000004", func(in *customer.CreateInput) {
		in.LoanID, in.RelogReason = optional.Of("LN-1"), optional.Of("New loan application")
	}))
	if err != nil || relog.RelogReason != "New loan application" {
		t.Fatalf("relog: %v", err)
	}
	for _, id := range []string{first.ID, relog.ID} {
		if err := f.svc.Delete(as(who), who, id); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.svc.Create(as(who), who, input("+2348030000004", func(in *customer.CreateInput) { in.LoanID = optional.Of("LN-1") })); err != nil {
		t.Fatalf("deleted customers still block: %v", err)
	}
	var deleted int
	_ = f.pool.QueryRow(context.Background(), `SELECT count(*) FROM customers WHERE deleted_at IS NOT NULL`).Scan(&deleted)
	if deleted != 2 {
		t.Fatalf("soft-deleted rows kept: %d", deleted)
	}
}

func TestUpdateRefusesAnotherCustomersPhone(t *testing.T) {
	t.Parallel()
	f := setup(t)
	who := customer.Caller{OrgID: "org_u", Env: "test"}
	a, _ := f.svc.Create(as(who), who, input("+2348030000005", nil))
	b, _ := f.svc.Create(as(who), who, input("+2348030000006", nil))
	_, err := f.svc.Update(as(who), who, b.ID, customer.Fields{Phone: optional.Of("+234 803 000 0005")})
	if e, ok := apperr.As(err); !ok || e.Code != customer.CodeDuplicate || e.Details[0].ExistingID != a.ID {
		t.Fatalf("got %v", err)
	}
	// Keeping one's own phone is not a duplicate.
	if _, err := f.svc.Update(as(who), who, a.ID, customer.Fields{Phone: optional.Of("+2348030000005"), Occupation: optional.Of("Trader")}); err != nil {
		t.Fatal(err)
	}
	var n int
	_ = f.pool.QueryRow(context.Background(), `SELECT count(*) FROM outbox WHERE event_type = 'customer.updated'`).Scan(&n)
	if n != 1 {
		t.Fatalf("customer.updated events: %d", n)
	}
}

// A read racing the verification consumer must see the customer's status
// and its addresses as of one moment, never a new address with an old
// status. The test proves reads happened: every read must succeed, and
// both Get and List must have seen each state the address moves through
// many times while it moved.
func TestReadsSeeStatusAndAddressesTogether(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ctx := context.Background()
	who := customer.Caller{OrgID: "org_snap", Env: "test"}
	c, err := f.svc.Create(as(who), who, input("+2348030000009", nil))
	if err != nil {
		t.Fatal(err)
	}
	consumer := inbox.New("test", nil, f.pool, logging.Discard(), inbox.HandlerOf(events.Subscriptions(f.svc, f.store.Within), "customer.verification-status"))
	readers := map[string]func() (customer.Customer, error){
		"Get": func() (customer.Customer, error) { return f.svc.Get(ctx, who, c.ID) },
		// The status poll: one statement, so one snapshot without a transaction.
		"Status": func() (customer.Customer, error) { return f.svc.Status(ctx, who, c.ID) },
		"List": func() (customer.Customer, error) {
			page, err := f.svc.List(ctx, customer.ListQuery{OrgID: who.OrgID, Env: who.Env, Page: 1, Limit: 10})
			if err != nil {
				return customer.Customer{}, err
			}
			if len(page.Customers) != 1 {
				return customer.Customer{}, fmt.Errorf("listed %d customers, want 1", len(page.Customers))
			}
			return page.Customers[0], nil
		},
	}
	// The address alternates between these; the customer's status follows.
	states := []string{customer.StatusInProgress, customer.StatusVerified}
	const (
		minUpdates       = 150
		minReadsPerState = 25
	)
	var (
		mu     sync.Mutex
		seen   = map[string]int{} // "Get VERIFIED" -> consistent reads
		torn   []string
		failed []string // unexpected read errors
	)
	// enough reports whether every reader saw every state enough times;
	// after a failed read there is no point going on.
	enough := func() bool {
		mu.Lock()
		defer mu.Unlock()
		if len(failed) > 0 {
			return true
		}
		for name := range readers {
			for _, st := range states {
				if seen[name+" "+st] < minReadsPerState {
					return false
				}
			}
		}
		return true
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				for name, read := range readers {
					select {
					case <-done:
						return
					default:
					}
					got, err := read()
					mu.Lock()
					switch {
					case err != nil:
						failed = append(failed, fmt.Sprintf("%s: %v", name, err))
					case len(got.Addresses) != 1:
						failed = append(failed, fmt.Sprintf("%s: %d addresses", name, len(got.Addresses)))
					case got.Status != got.Addresses[0].Status: // each update moves both alike
						torn = append(torn, fmt.Sprintf("%s: customer %s with address %s", name, got.Status, got.Addresses[0].Status))
					default:
						seen[name+" "+got.Status]++
					}
					mu.Unlock()
				}
			}
		}()
	}
	deadline := time.Now().Add(30 * time.Second)
	seq := int64(0)
	for seq < minUpdates || (!enough() && time.Now().Before(deadline)) {
		seq++
		status := customer.AddressInProgress
		if seq%2 == 0 {
			status = customer.AddressVerified
		}
		e, _ := event.New(events.TypeAddressUpdated, who.OrgID, who.Env, map[string]any{"customerId": c.ID,
			"addressId": c.Addresses[0].ID, "status": status, "sequence": seq, "occurredAt": time.Now(), "overallStatus": status})
		if err := consumer.Apply(ctx, e); err != nil {
			close(done)
			wg.Wait()
			t.Fatal(err)
		}
	}
	close(done)
	wg.Wait()
	if len(failed) > 0 {
		t.Errorf("%d reads failed, e.g. %s", len(failed), failed[0])
	}
	if len(torn) > 0 {
		t.Errorf("%d torn reads, e.g. %s", len(torn), torn[0])
	}
	for name := range readers {
		for _, st := range states {
			if n := seen[name+" "+st]; n < minReadsPerState {
				t.Errorf("%s: %d consistent reads saw %s over %d updates, want at least %d", name, n, st, seq, minReadsPerState)
			}
		}
	}
	t.Logf("%d updates; consistent reads: %v", seq, seen)
}

// An address update published before verification announced the overall
// status (in flight during an upgrade) still moves the address; the
// customer's status stays as it was until the next event says.
func TestAnUpdateWithoutOverallStatusMovesOnlyTheAddress(t *testing.T) {
	t.Parallel()
	f := setup(t)
	who := customer.Caller{OrgID: "org_legacy", Env: "test"}
	c, err := f.svc.Create(as(who), who, input("+2348030000011", nil))
	if err != nil {
		t.Fatal(err)
	}
	consumer := inbox.New("test", nil, f.pool, logging.Discard(), inbox.HandlerOf(events.Subscriptions(f.svc, f.store.Within), "customer.verification-status"))
	e, _ := event.New(events.TypeAddressUpdated, who.OrgID, who.Env, map[string]any{"customerId": c.ID,
		"addressId": c.Addresses[0].ID, "status": "ASSIGNED", "sequence": 2, "occurredAt": time.Now()})
	if err := consumer.Apply(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	got, err := f.svc.Get(context.Background(), who, c.ID)
	if err != nil || got.Addresses[0].Status != customer.AddressAssigned || got.Status != customer.StatusPending {
		t.Fatalf("after a legacy update: %s / %s (%v)", got.Status, got.Addresses[0].Status, err)
	}
}

// The status move is one statement scoped by the customer's tenant: an
// event naming a customer of another organization, or one that was
// deleted, moves no address and no counter.
func TestAddressUpdatesOfDeletedOrForeignCustomersMoveNoCounter(t *testing.T) {
	t.Parallel()
	f := setup(t)
	who := customer.Caller{OrgID: "org_moves", Env: "test"}
	other := customer.Caller{OrgID: "org_other", Env: "test"}
	kept, err := f.svc.Create(as(who), who, input("+2348030000012", nil))
	if err != nil {
		t.Fatal(err)
	}
	gone, err := f.svc.Create(as(who), who, input("+2348030000013", nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.svc.Delete(as(who), who, gone.ID); err != nil {
		t.Fatal(err)
	}
	consumer := inbox.New("test", nil, f.pool, logging.Discard(), inbox.HandlerOf(events.Subscriptions(f.svc, f.store.Within), "customer.verification-status"))
	for _, tc := range []struct {
		as customer.Caller
		c  customer.Customer
	}{{other, kept}, {who, gone}, {customer.Caller{OrgID: who.OrgID, Env: "live"}, kept}} {
		e, _ := event.New(events.TypeAddressUpdated, tc.as.OrgID, tc.as.Env, map[string]any{"customerId": tc.c.ID,
			"addressId": tc.c.Addresses[0].ID, "status": "VERIFIED", "sequence": 5, "occurredAt": time.Now(),
			"overallStatus": "VERIFIED", "verificationDate": time.Now()})
		if err := consumer.Apply(context.Background(), e); err != nil {
			t.Fatal(err)
		}
	}
	got, err := f.svc.Get(context.Background(), who, kept.ID)
	if err != nil || got.Status != customer.StatusPending || got.Addresses[0].Status != customer.AddressPending {
		t.Fatalf("another tenant's event moved the customer: %s / %s (%v)", got.Status, got.Addresses[0].Status, err)
	}
	for status, want := range map[string]int64{customer.StatusPending: 1, customer.StatusVerified: 0} {
		page, err := f.svc.List(context.Background(), customer.ListQuery{OrgID: who.OrgID, Env: who.Env, Page: 1, Limit: 10, Status: status})
		if err != nil || page.Total != want {
			t.Errorf("%s: total %d, want %d (%v)", status, page.Total, want, err)
		}
	}
}
