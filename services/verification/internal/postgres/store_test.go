package postgres_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/eventually"
	"github.com/kycfield/kyc/pkg/ids"
	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/pkg/objstore/pending"
	"github.com/kycfield/kyc/pkg/outbox"
	"github.com/kycfield/kyc/pkg/pgdb"
	"github.com/kycfield/kyc/pkg/pgtest"
	"github.com/kycfield/kyc/services/verification/internal/events"
	"github.com/kycfield/kyc/services/verification/internal/postgres"
	"github.com/kycfield/kyc/services/verification/internal/verification"
	"github.com/kycfield/kyc/services/verification/internal/verification/view"
	"github.com/kycfield/kyc/services/verification/migrations"
)

// photoSizes are the stored mock photos the sandbox shows.
var photoSizes = map[string]int64{"building_front": 1000, "street_view": 900, "landmark": 800}

type fixture struct {
	pool  *pgxpool.Pool
	store *postgres.Store
	svc   *verification.Service
	ctx   context.Context
}

func setup(t *testing.T) fixture {
	t.Helper()
	pool, _ := pgtest.NewDB(t, migrations.Set(), outbox.Migration(), inbox.Migration(), pending.Migration())
	store := postgres.New(pool, "verification-events", events.Publisher{View: view.Renderer{BaseURL: "https://api.example.com"}}.Of)
	return fixture{pool: pool, store: store, ctx: context.Background(),
		svc: verification.NewService(store, time.Now, verification.Sandbox{Delay: 0, Photos: photoSizes})}
}

// open starts verifying a customer as the customer-events consumer does
// (Open in a transaction of its own) and returns its id and addresses'.
func (f fixture) open(t *testing.T, orgID, env string, addrs ...verification.Address) (string, []string) {
	t.Helper()
	in := verification.CaseInput{CustomerID: ids.New("cus"), OrgID: orgID, Env: env, FirstName: "Ngozi", LastName: "Okafor",
		Phone: "+2348031234567", LoanType: "PERSONAL", At: time.Now().Add(-time.Minute)}
	var addressIDs []string
	for _, a := range addrs {
		id := ids.New("adr")
		addressIDs = append(addressIDs, id)
		in.Addresses = append(in.Addresses, verification.AddressInput{ID: id, Address: a})
	}
	if err := f.store.Atomic(f.ctx, func(tx verification.Tx) error { return f.svc.Open(f.ctx, tx, in) }); err != nil {
		t.Fatal(err)
	}
	return in.CustomerID, addressIDs
}

func lagos(notes, landmark string) verification.Address {
	return verification.Address{StreetNumber: "12", StreetName: "Adeola Odeku Street", Landmark: landmark, City: "Victoria Island",
		State: "Lagos", Country: "Nigeria", Notes: notes}
}

// drain runs the sandbox until nothing is due and reports how many job
// advances it made.
func drain(t *testing.T, svc *verification.Service) int {
	t.Helper()
	total := 0
	for range 20 {
		n, err := svc.RunSandbox(context.Background(), 50)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return total
		}
		total += n
	}
	t.Fatal("the sandbox never ran out of due work")
	return 0
}

// published is one outbox row.
type published struct {
	Type string
	Key  string
	Data struct {
		CustomerID    string `json:"customerId"`
		AddressID     string `json:"addressId"`
		Status        string `json:"status"`
		Sequence      int64  `json:"sequence"`
		OverallStatus string `json:"overallStatus"`
		Addresses     []struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		} `json:"addresses"`
	}
}

func (f fixture) outbox(t *testing.T) []published {
	t.Helper()
	rows, err := f.pool.Query(f.ctx, `SELECT event_type, msg_key, payload->'data' FROM outbox ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (published, error) {
		var p published
		var data []byte
		if err := r.Scan(&p.Type, &p.Key, &data); err != nil {
			return p, err
		}
		return p, json.Unmarshal(data, &p.Data)
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// checkHistories holds every address's events to strictly increasing
// sequences with no gap or repeat (1, 2, 3, ...), in outbox order, and
// every customer to exactly one completed-or-rejected event, after its
// last address event; it returns the final events by customer.
func checkHistories(t *testing.T, evs []published) map[string]published {
	t.Helper()
	checkSequences(t, evs)
	final := map[string]published{}
	for i, e := range evs {
		switch e.Type {
		case verification.EventAddressUpdated:
			if _, done := final[e.Key]; done && e.Data.Status != verification.Cancelled {
				t.Fatalf("event %d: %s moved to %s after its customer's final event", i, e.Data.AddressID, e.Data.Status)
			}
		case verification.EventCompleted, verification.EventRejected:
			if prev, dup := final[e.Key]; dup {
				t.Fatalf("event %d: a second final event for %s (%s, then %s)", i, e.Key, prev.Type, e.Type)
			}
			final[e.Key] = e
		}
	}
	return final
}

// checkSequences holds every address's events to sequences 1, 2, 3, ...
// in outbox order (no gap, no repeat) and returns each customer's
// completed/rejected events in order.
func checkSequences(t *testing.T, evs []published) map[string][]string {
	t.Helper()
	last := map[string]int64{}
	finals := map[string][]string{}
	for i, e := range evs {
		switch e.Type {
		case verification.EventAddressUpdated:
			if e.Data.Sequence != last[e.Data.AddressID]+1 {
				t.Fatalf("event %d: %s sequence %d after %d", i, e.Data.AddressID, e.Data.Sequence, last[e.Data.AddressID])
			}
			last[e.Data.AddressID] = e.Data.Sequence
		case verification.EventCompleted, verification.EventRejected:
			finals[e.Key] = append(finals[e.Key], e.Type)
		default:
			t.Fatalf("event %d: unexpected type %s", i, e.Type)
		}
	}
	return finals
}

// checkCounters holds the status counters (kept in every transaction) to
// the live cases' actual statuses.
func checkCounters(t *testing.T, f fixture) {
	t.Helper()
	var diff string
	err := f.pool.QueryRow(f.ctx, `WITH actual AS (
			SELECT org_id, env, status, count(*) AS n FROM cases WHERE deleted_at IS NULL GROUP BY 1, 2, 3
			UNION ALL SELECT org_id, env, 'ALL', count(*) FROM cases WHERE deleted_at IS NULL GROUP BY 1, 2),
		kept AS (SELECT org_id, env, status, n FROM case_counts WHERE n <> 0)
		SELECT coalesce(string_agg(coalesce(a.status, k.status) || ': kept ' || coalesce(k.n, 0) || ', actual ' || coalesce(a.n, 0), '; '), '')
		FROM actual a FULL JOIN kept k USING (org_id, env, status) WHERE a.n IS DISTINCT FROM k.n`).Scan(&diff)
	if err != nil {
		t.Fatal(err)
	}
	if diff != "" {
		t.Fatalf("counters disagree with the cases: %s", diff)
	}
}

func TestSandboxTakesACustomerToVerified(t *testing.T) {
	t.Parallel()
	f := setup(t)
	org := ids.New("org")
	cid, addrs := f.open(t, org, verification.EnvTest, lagos("", "Near the bank"), verification.Address{
		StreetName: "Aminu Kano Crescent", City: "Wuse II", State: "FCT", Country: "Nigeria"})
	if n := drain(t, f.svc); n != 2 {
		t.Fatalf("%d advances; want one per address", n)
	}
	c, err := f.store.Case(f.ctx, org, verification.EnvTest, cid)
	if err != nil {
		t.Fatal(err)
	}
	if c.Status != verification.Verified || c.VerificationDate == nil || len(c.Jobs) != 2 {
		t.Fatalf("case %s date %v jobs %d", c.Status, c.VerificationDate, len(c.Jobs))
	}
	for i, j := range c.Jobs {
		var statuses []string
		for _, tr := range j.Timeline {
			statuses = append(statuses, tr.Status)
		}
		wantPhotos := []string{"building_front", "street_view"}
		if i == 0 {
			wantPhotos = append(wantPhotos, "landmark") // it has a landmark
		}
		var tags []string
		for _, p := range j.Photos {
			tags = append(tags, p.Tag)
			if p.Size != photoSizes[p.Tag] || p.ObjectKey != verification.SandboxPhotoKey(p.Tag) || p.ContentType != "image/jpeg" {
				t.Fatalf("photo %+v", p)
			}
		}
		if j.AddressID != addrs[i] || j.Status != verification.Verified || j.Sequence != 4 || j.DueAt != nil || j.CompletedAt == nil ||
			j.AgentID == "" || strings.Join(statuses, ",") != "PENDING,ASSIGNED,IN_PROGRESS,VERIFIED" ||
			j.Result == nil || j.Result.VerifiedLatitude == nil || !slices.Equal(tags, wantPhotos) {
			t.Fatalf("job %d: %+v timeline %v photos %v", i, j, statuses, tags)
		}
	}
	var photoRows int
	if err := f.pool.QueryRow(f.ctx, `SELECT count(*) FROM photos WHERE customer_id = $1`, cid).Scan(&photoRows); err != nil || photoRows != 5 {
		t.Fatalf("%d photo rows (%v); want 5", photoRows, err)
	}
	counts := map[string]int64{}
	rows, _ := f.pool.Query(f.ctx, `SELECT status, n FROM case_counts WHERE org_id = $1 AND env = 'test'`, org)
	for rows.Next() {
		var s string
		var n int64
		_ = rows.Scan(&s, &n)
		counts[s] = n
	}
	if counts["ALL"] != 1 || counts[verification.Verified] != 1 || counts[verification.Pending] != 0 || counts[verification.InProgress] != 0 {
		t.Fatalf("counters %v", counts)
	}
	st, err := f.store.Stats(f.ctx, org, verification.EnvTest)
	if err != nil || st.Total != 1 || st.Verified != 1 || st.Pending+st.InProgress+st.Rejected != 0 || st.AverageTurnaround == nil {
		t.Fatalf("stats %+v %v", st, err)
	}
	var turnarounds int64
	if err := f.pool.QueryRow(f.ctx, `SELECT n FROM turnaround WHERE org_id = $1 AND env = 'test'`, org).Scan(&turnarounds); err != nil || turnarounds != 1 {
		t.Fatalf("turnaround rows %d %v", turnarounds, err)
	}

	evs := f.outbox(t)
	final := checkHistories(t, evs)
	checkTwoAddressVisit(t, evs, addrs)
	if done := final[cid]; done.Data.OverallStatus != verification.Verified || len(done.Data.Addresses) != 2 || done.Data.CustomerID != cid {
		t.Fatalf("completed event %+v", done.Data)
	}
}

// failingStore fails one of its transactions midway: the Nth Emit (an
// outbox write) cancels the context first (the process dying, its
// connection gone) or fails outright (a constraint, a full disk).
type failingStore struct {
	verification.Store
	failAt int64
	cancel context.CancelFunc // nil: Emit fails with an error instead
	emits  atomic.Int64
}

var errInjected = errors.New("injected failure")

func (s *failingStore) Atomic(ctx context.Context, fn func(verification.Tx) error) error {
	return s.Store.Atomic(ctx, func(tx verification.Tx) error { return fn(&failingTx{Tx: tx, s: s}) })
}

type failingTx struct {
	verification.Tx
	s *failingStore
}

func (t *failingTx) Emit(ctx context.Context, ch verification.Change) error {
	if t.s.emits.Add(1) == t.s.failAt {
		if t.s.cancel == nil {
			return errInjected
		}
		t.s.cancel()
	}
	return t.Tx.Emit(ctx, ch)
}

func TestASandboxBatchThatDiesMidwayLosesAndDuplicatesNothing(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		failAt int64
		cancel bool
	}{
		{"emit fails on the first transition", 1, false},
		{"emit fails deep in the batch", 7, false},
		{"context cancelled deep in the batch", 9, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := setup(t)
			org := ids.New("org")
			plain, _ := f.open(t, org, verification.EnvTest, lagos("", "Near the bank"), lagos("", ""))
			noAccess, _ := f.open(t, org, verification.EnvTest, lagos("SANDBOX_NO_ACCESS", ""))
			rejected, _ := f.open(t, org, verification.EnvTest, lagos("Blue gate. SANDBOX_REJECT", ""), lagos("", ""))
			before := f.outbox(t)

			ctx, cancel := context.WithCancel(f.ctx)
			defer cancel()
			fs := &failingStore{Store: f.store, failAt: tc.failAt}
			if tc.cancel {
				fs.cancel = cancel
			}
			dying := verification.NewService(fs, time.Now, verification.Sandbox{Delay: 0, Photos: photoSizes})
			if _, err := dying.RunSandbox(ctx, 50); err == nil {
				t.Fatal("the failing batch reported no error")
			} else if !tc.cancel && !errors.Is(err, errInjected) {
				t.Fatalf("error %v; want the injected one", err)
			}
			if fs.emits.Load() < tc.failAt {
				t.Fatalf("only %d emits: the failure was never reached", fs.emits.Load())
			}
			// Nothing of the dead batch is left half done: whatever it
			// committed, every committed customer is whole.
			var photos, open int
			if err := f.pool.QueryRow(f.ctx, `SELECT (SELECT count(*) FROM photos),
				(SELECT count(*) FROM jobs WHERE status NOT IN ('VERIFIED', 'REJECTED'))`).Scan(&photos, &open); err != nil {
				t.Fatal(err)
			}
			checkHistories(t, f.outbox(t))
			checkCounters(t, f)
			t.Logf("after the failure: %d photos, %d open jobs, %d events (%d before)", photos, open, len(f.outbox(t)), len(before))

			// The restarted worker finishes everything, once the dead
			// batch's session has ended: a cancelled query's backend may
			// hold its row locks a moment after the client let go, and the
			// sandbox claim skips locked rows (the next poll would take
			// them; drain stops at the first empty claim).
			eventually.True(t, 10*time.Second, "the dead batch's session ends", func() bool {
				var open int
				err := f.pool.QueryRow(f.ctx, `SELECT count(*) FROM pg_stat_activity
					WHERE datname = current_database() AND pid <> pg_backend_pid() AND xact_start IS NOT NULL`).Scan(&open)
				return err == nil && open == 0
			})
			drain(t, f.svc)
			final := checkHistories(t, f.outbox(t))
			want := map[string]string{plain: verification.EventCompleted, noAccess: verification.EventCompleted, rejected: verification.EventRejected}
			for cid, typ := range want {
				if final[cid].Type != typ {
					t.Errorf("%s: final event %q; want %s", cid, final[cid].Type, typ)
				}
				c, err := f.store.Case(f.ctx, org, verification.EnvTest, cid)
				if err != nil {
					t.Fatal(err)
				}
				for _, j := range c.Jobs {
					if !verification.IsFinal(j.Status) {
						t.Errorf("%s %s is still %s", cid, j.AddressID, j.Status)
					}
				}
			}
			// Photos: 3 (landmark) + 2 for the plain customer, 2 for the
			// one verified after a failed visit, 2 for the verified address
			// of the rejected one; each once.
			if err := f.pool.QueryRow(f.ctx, `SELECT count(*) FROM photos`).Scan(&photos); err != nil || photos != 9 {
				t.Fatalf("%d photos (%v); want 9", photos, err)
			}
			var dupTags int
			if err := f.pool.QueryRow(f.ctx, `SELECT count(*) FROM (SELECT address_id, tag FROM photos GROUP BY 1, 2 HAVING count(*) > 1) d`).
				Scan(&dupTags); err != nil || dupTags != 0 {
				t.Fatalf("%d duplicated photos (%v)", dupTags, err)
			}
			checkCounters(t, f)
			st, err := f.store.Stats(f.ctx, org, verification.EnvTest)
			if err != nil || st.Total != 3 || st.Verified != 2 || st.Rejected != 1 || st.Pending+st.InProgress != 0 {
				t.Fatalf("stats %+v %v", st, err)
			}
		})
	}
}

func TestTwoSandboxWorkersNeverProcessOneCustomerTwice(t *testing.T) {
	t.Parallel()
	f := setup(t)
	org := ids.New("org")
	var customers []string
	for i := range 12 {
		notes := ""
		if i%4 == 3 {
			notes = "SANDBOX_NO_ACCESS" // a second visit is due at once
		}
		cid, _ := f.open(t, org, verification.EnvTest, lagos(notes, "Near the bank"), lagos("", ""))
		customers = append(customers, cid)
	}
	// Each worker polls until no sandbox work is due at all, as the real
	// worker does (a worker that finds only locked customers gets 0 and
	// tries again), so the two overlap for the whole run.
	start := make(chan struct{})
	var wg sync.WaitGroup
	var advanced [2]atomic.Int64
	errs := make(chan error, 100)
	deadline := time.Now().Add(30 * time.Second)
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for time.Now().Before(deadline) {
				n, err := f.svc.RunSandbox(f.ctx, 3)
				if err != nil {
					errs <- err
					continue
				}
				advanced[w].Add(int64(n))
				var due int
				if err := f.pool.QueryRow(f.ctx, `SELECT count(*) FROM jobs WHERE due_at IS NOT NULL
					AND status IN ('PENDING', 'ASSIGNED', 'IN_PROGRESS')`).Scan(&due); err != nil {
					errs <- err
					return
				}
				if n == 0 && due == 0 {
					return
				}
			}
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("worker: %v", err)
	}
	t.Logf("advances by worker: %d and %d", advanced[0].Load(), advanced[1].Load())
	if left := drain(t, f.svc); left != 0 {
		t.Errorf("the workers stopped with %d advances still due", left)
	}
	// 24 addresses, 3 of them visited twice.
	if got := advanced[0].Load() + advanced[1].Load(); got != 27 {
		t.Errorf("%d advances; want 27 (each address once, each NO_ACCESS one twice)", got)
	}
	final := checkHistories(t, f.outbox(t))
	for _, cid := range customers {
		if final[cid].Type != verification.EventCompleted {
			t.Errorf("%s: final event %q", cid, final[cid].Type)
		}
	}
	var photos, perAddress int
	if err := f.pool.QueryRow(f.ctx, `SELECT count(*), count(DISTINCT (address_id, tag)) FROM photos`).Scan(&photos, &perAddress); err != nil ||
		photos != 12*5 || perAddress != photos {
		t.Fatalf("%d photos, %d distinct (address, tag) (%v); want 60 each", photos, perAddress, err)
	}
	checkCounters(t, f)
	st, err := f.store.Stats(f.ctx, org, verification.EnvTest)
	if err != nil || st.Total != 12 || st.Verified != 12 {
		t.Fatalf("stats %+v %v", st, err)
	}
}

func TestDeletingCancelsOpenJobsOnly(t *testing.T) {
	t.Parallel()
	f := setup(t)
	org := ids.New("org")
	// One address verified, one stalled (ASSIGNED, nothing due), one
	// after a failed visit (ASSIGNED, a re-visit due), one added later
	// (PENDING).
	cid, addrs := f.open(t, org, verification.EnvTest, lagos("", ""), lagos("SANDBOX_STALL", ""), lagos("SANDBOX_NO_ACCESS", ""))
	if n, err := f.svc.RunSandbox(f.ctx, 1); err != nil || n != 3 {
		t.Fatalf("first visits: %d %v", n, err)
	}
	added := ids.New("adr")
	err := f.store.Atomic(f.ctx, func(tx verification.Tx) error {
		return f.svc.AddAddress(f.ctx, tx, cid, verification.AddressInput{ID: added, Address: lagos("SANDBOX_STALL", "")})
	})
	if err != nil {
		t.Fatal(err)
	}
	// A live customer: no sandbox, its jobs wait for an agent.
	liveID, liveAddrs := f.open(t, org, verification.EnvLive, lagos("", ""), lagos("", ""))
	c, err := f.store.Case(f.ctx, org, verification.EnvTest, cid)
	if err != nil {
		t.Fatal(err)
	}
	photo := c.Jobs[0].Photos[0]
	beforeSeq := map[string]int64{}
	for _, j := range c.Jobs {
		beforeSeq[j.AddressID] = j.Sequence
	}
	if got := statuses(c); got != "VERIFIED,ASSIGNED,ASSIGNED,PENDING" {
		t.Fatalf("before the deletion: %s", got)
	}
	evsBefore := len(f.outbox(t))

	if err := f.store.Atomic(f.ctx, func(tx verification.Tx) error { return f.svc.Close(f.ctx, tx, cid) }); err != nil {
		t.Fatal(err)
	}
	evs := f.outbox(t)[evsBefore:]
	checkHistories(t, f.outbox(t))
	var cancelled []string
	for _, e := range evs {
		if e.Type != verification.EventAddressUpdated || e.Data.Status != verification.Cancelled || e.Data.Sequence != beforeSeq[e.Data.AddressID]+1 {
			t.Fatalf("on deletion: %s %+v", e.Type, e.Data)
		}
		cancelled = append(cancelled, e.Data.AddressID)
	}
	if !slices.Equal(cancelled, []string{addrs[1], addrs[2], added}) {
		t.Fatalf("cancelled %v; want the open ones %v", cancelled, []string{addrs[1], addrs[2], added})
	}
	var first string
	var seq int64
	if err := f.pool.QueryRow(f.ctx, `SELECT status, sequence FROM jobs WHERE address_id = $1`, addrs[0]).Scan(&first, &seq); err != nil ||
		first != verification.Verified || seq != beforeSeq[addrs[0]] {
		t.Fatalf("the verified address became %s/%d (%v)", first, seq, err)
	}
	// Gone from reads and statistics; the sandbox has nothing left to do
	// for it.
	if _, err := f.store.Case(f.ctx, org, verification.EnvTest, cid); !apperr.IsCode(err, apperr.CodeNotFound) {
		t.Fatalf("deleted case: %v", err)
	}
	if _, err := f.store.Photo(f.ctx, org, verification.EnvTest, cid, photo.ID); !apperr.IsCode(err, apperr.CodeNotFound) {
		t.Fatalf("deleted case's photo: %v", err)
	}
	st, err := f.store.Stats(f.ctx, org, verification.EnvTest)
	if err != nil || st != (verification.Stats{}) {
		t.Fatalf("test stats after the deletion: %+v %v", st, err)
	}
	if n := drain(t, f.svc); n != 0 {
		t.Fatalf("the sandbox advanced %d jobs of a deleted customer", n)
	}
	checkCounters(t, f)
	// The live customer was never touched by the sandbox.
	lc, err := f.store.Case(f.ctx, org, verification.EnvLive, liveID)
	if err != nil {
		t.Fatal(err)
	}
	for i, j := range lc.Jobs {
		if j.AddressID != liveAddrs[i] || j.Status != verification.Pending || j.Sequence != 1 || j.DueAt != nil {
			t.Fatalf("live job %d: %s/%d due %v", i, j.Status, j.Sequence, j.DueAt)
		}
	}
	if lst, err := f.store.Stats(f.ctx, org, verification.EnvLive); err != nil || lst.Total != 1 || lst.Pending != 1 {
		t.Fatalf("live stats %+v %v", lst, err)
	}
}

func statuses(c verification.Case) string {
	var s []string
	for _, j := range c.Jobs {
		s = append(s, j.Status)
	}
	return strings.Join(s, ",")
}

func TestReadsAreScopedToTheOrganizationAndEnvironment(t *testing.T) {
	t.Parallel()
	f := setup(t)
	org, other := ids.New("org"), ids.New("org")
	cid, _ := f.open(t, org, verification.EnvTest, lagos("", ""))
	sibling, _ := f.open(t, org, verification.EnvTest, lagos("", ""))
	drain(t, f.svc)
	c, err := f.store.Case(f.ctx, org, verification.EnvTest, cid)
	if err != nil || len(c.Jobs) != 1 || len(c.Jobs[0].Photos) != 2 {
		t.Fatalf("own case: %v %+v", err, c)
	}
	photo := c.Jobs[0].Photos[0]
	if p, err := f.store.Photo(f.ctx, org, verification.EnvTest, cid, photo.ID); err != nil || p.ID != photo.ID || p.ObjectKey == "" {
		t.Fatalf("own photo: %+v %v", p, err)
	}
	if st, err := f.store.Stats(f.ctx, org, verification.EnvTest); err != nil || st.Total != 2 {
		t.Fatalf("own stats: %+v %v", st, err)
	}
	for _, who := range []struct{ name, org, env, customer string }{
		{"another organization", other, verification.EnvTest, cid},
		{"the live environment", org, verification.EnvLive, cid},
		{"another organization's live environment", other, verification.EnvLive, cid},
		{"another customer of the organization", org, verification.EnvTest, sibling}, // photos only
	} {
		if who.customer == cid {
			if _, err := f.store.Case(f.ctx, who.org, who.env, cid); !apperr.IsCode(err, apperr.CodeNotFound) {
				t.Errorf("%s reads the case: %v", who.name, err)
			}
			if st, err := f.store.Stats(f.ctx, who.org, who.env); err != nil || st != (verification.Stats{}) {
				t.Errorf("%s's stats: %+v %v", who.name, st, err)
			}
		}
		if _, err := f.store.Photo(f.ctx, who.org, who.env, who.customer, photo.ID); !apperr.IsCode(err, apperr.CodeNotFound) {
			t.Errorf("%s reads the photo: %v", who.name, err)
		}
	}
	// The service answers the same, without a query, for malformed ids.
	svcCaller := verification.Caller{OrgID: other, Env: verification.EnvTest}
	if _, err := f.svc.Photo(f.ctx, verification.Caller{OrgID: org, Env: verification.EnvTest}, "cus_nope", photo.ID); !apperr.IsCode(err, apperr.CodeNotFound) {
		t.Errorf("malformed id: %v", err)
	}
	if _, err := f.svc.Photo(f.ctx, svcCaller, cid, photo.ID); !apperr.IsCode(err, apperr.CodeNotFound) {
		t.Errorf("service photo for another organization: %v", err)
	}
}

// pausingStore holds its transaction at the first event that at matches
// until released.
type pausingStore struct {
	verification.Store
	at      func(verification.Change) bool
	holding chan struct{}
	release chan struct{}
	once    sync.Once
}

func newPausingStore(s verification.Store, at func(verification.Change) bool) *pausingStore {
	return &pausingStore{Store: s, at: at, holding: make(chan struct{}), release: make(chan struct{})}
}

func (s *pausingStore) Atomic(ctx context.Context, fn func(verification.Tx) error) error {
	return s.Store.Atomic(ctx, func(tx verification.Tx) error { return fn(&pausingTx{Tx: tx, s: s}) })
}

type pausingTx struct {
	verification.Tx
	s *pausingStore
}

func (t *pausingTx) Emit(ctx context.Context, ch verification.Change) error {
	if t.s.at(ch) {
		t.s.once.Do(func() {
			close(t.s.holding)
			<-t.s.release
		})
	}
	return t.Tx.Emit(ctx, ch)
}

// TestSandboxWorkersDoNotDeadlockOnTheCounters crosses two workers the
// way a re-visit and a first visit cross: worker A finishes a re-visit
// (its case moves IN_PROGRESS -> VERIFIED) and, in the same transaction,
// would go on to a new customer (PENDING -> IN_PROGRESS); worker B starts
// a new customer in between. The counters of one organization are shared
// rows, so a transaction that spans customers can take them in opposite
// orders.
func TestSandboxWorkersDoNotDeadlockOnTheCounters(t *testing.T) {
	t.Parallel()
	f := setup(t)
	org := ids.New("org")
	revisit, _ := f.open(t, org, verification.EnvTest, lagos("SANDBOX_NO_ACCESS", ""))
	if n, err := f.svc.RunSandbox(f.ctx, 1); err != nil || n != 1 {
		t.Fatalf("first visit: %d %v", n, err)
	}
	f.open(t, org, verification.EnvTest, lagos("", ""))
	f.open(t, org, verification.EnvTest, lagos("", ""))

	// A holds its transaction after the re-visit's case went IN_PROGRESS
	// -> VERIFIED (at its completed event).
	ps := newPausingStore(f.store, func(ch verification.Change) bool { return ch.Type == verification.EventCompleted })
	a := verification.NewService(ps, time.Now, verification.Sandbox{Delay: 0, Photos: photoSizes})
	errs := make(chan error, 2)
	go func() { _, err := a.RunSandbox(f.ctx, 2); errs <- err }()
	select {
	case <-ps.holding:
	case <-time.After(10 * time.Second):
		t.Fatal("worker A never completed the re-visit")
	}
	bDone := make(chan struct{})
	go func() { _, err := f.svc.RunSandbox(f.ctx, 3); errs <- err; close(bDone) }()
	waitForLockOrDone(t, f, bDone)
	close(ps.release)
	for range 2 {
		if err := <-errs; err != nil {
			t.Errorf("worker: %v", err)
		}
	}
	drain(t, f.svc)
	checkCounters(t, f)
	final := checkHistories(t, f.outbox(t))
	if len(final) != 3 || final[revisit].Type != verification.EventCompleted {
		t.Fatalf("final events %v", final)
	}
}

// waitForLockOrDone returns once a transaction of the test's database
// waits for a lock, or done is closed.
func waitForLockOrDone(t *testing.T, f fixture, done <-chan struct{}) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; {
		var waiting int
		if err := f.pool.QueryRow(f.ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		select {
		case <-done:
			return
		default:
		}
		if waiting > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the second transaction neither waited nor finished")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestAnAddressAddedToAVerifiedCustomerDoesNotDeadlockTheSandbox crosses
// the customer-events consumer with the sandbox worker, one customer
// each: the sandbox has moved a new customer PENDING -> IN_PROGRESS and
// will move it IN_PROGRESS -> VERIFIED; the consumer adds an address to
// another customer of the organization, already VERIFIED, which moves it
// back VERIFIED -> IN_PROGRESS. Both update the same counter rows.
func TestAnAddressAddedToAVerifiedCustomerDoesNotDeadlockTheSandbox(t *testing.T) {
	t.Parallel()
	f := setup(t)
	org := ids.New("org")
	verified, _ := f.open(t, org, verification.EnvTest, lagos("", ""))
	drain(t, f.svc)
	fresh, _ := f.open(t, org, verification.EnvTest, lagos("", ""), lagos("", ""))

	// The sandbox holds its transaction once the first address is
	// IN_PROGRESS: the case's counters have moved PENDING -> IN_PROGRESS.
	ps := newPausingStore(f.store, func(ch verification.Change) bool {
		return ch.Job != nil && ch.Job.Status == verification.InProgress
	})
	sandbox := verification.NewService(ps, time.Now, verification.Sandbox{Delay: 0, Photos: photoSizes})
	errs := make(chan error, 2)
	go func() { _, err := sandbox.RunSandbox(f.ctx, 1); errs <- err }()
	select {
	case <-ps.holding:
	case <-time.After(10 * time.Second):
		t.Fatal("the sandbox never reached the first check-in")
	}
	added := ids.New("adr")
	consumerDone := make(chan struct{})
	go func() {
		errs <- f.store.Atomic(f.ctx, func(tx verification.Tx) error {
			return f.svc.AddAddress(f.ctx, tx, verified, verification.AddressInput{ID: added, Address: lagos("", "")})
		})
		close(consumerDone)
	}()
	waitForLockOrDone(t, f, consumerDone)
	close(ps.release)
	for range 2 {
		if err := <-errs; err != nil {
			t.Errorf("transaction: %v", err)
		}
	}
	drain(t, f.svc)
	checkCounters(t, f)
	// Sequences hold; the customer with an added address was completed,
	// reopened and completed again.
	finals := checkSequences(t, f.outbox(t))
	if !slices.Equal(finals[fresh], []string{verification.EventCompleted}) ||
		!slices.Equal(finals[verified], []string{verification.EventCompleted, verification.EventCompleted}) {
		t.Fatalf("final events %v", finals)
	}
	c, err := f.store.Case(f.ctx, org, verification.EnvTest, verified)
	if err != nil || c.Status != verification.Verified || len(c.Jobs) != 2 {
		t.Fatalf("the customer with an added address: %v %s %d jobs", err, c.Status, len(c.Jobs))
	}
}

// With no delay and Immediate, the simulated agent acts in the
// transaction that opens the customer's jobs: the same events in the same
// order as the worker's (each address's PENDING first, then each visit,
// then the completion), all committed at once, and nothing left for the
// worker, which is not even woken; only a re-visit after no access is
// left to it, and it is woken for that.
func TestImmediateSandboxVerifiesInTheTransactionThatOpens(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.svc = verification.NewService(f.store, time.Now, verification.Sandbox{Delay: 0, Photos: photoSizes, Immediate: true})
	l, err := pgdb.Listen(f.ctx, f.pool, postgres.SandboxChannel)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	org := ids.New("org")
	cid, addrs := f.open(t, org, verification.EnvTest, lagos("", "Near the bank"), verification.Address{
		StreetName: "Aminu Kano Crescent", City: "Wuse II", State: "FCT", Country: "Nigeria"})

	evs := f.outbox(t)
	checkHistories(t, evs)
	checkTwoAddressVisit(t, evs, addrs)
	var txs int
	if err := f.pool.QueryRow(f.ctx, `SELECT count(DISTINCT xmin::text) FROM outbox`).Scan(&txs); err != nil || txs != 1 {
		t.Fatalf("the events were written by %d transactions (%v); want 1", txs, err)
	}
	c, err := f.store.Case(f.ctx, org, verification.EnvTest, cid)
	if err != nil || c.Status != verification.Verified || len(c.Jobs[0].Photos) != 3 || len(c.Jobs[1].Photos) != 2 {
		t.Fatalf("case %+v (%v)", c, err)
	}
	checkCounters(t, f)
	if n := drain(t, f.svc); n != 0 {
		t.Fatalf("the worker found %d advances left", n)
	}

	// The worker is woken only for the re-visit: our own notification
	// (sent after the first customer's commit) arrives before any other.
	if _, err := f.pool.Exec(f.ctx, `SELECT pg_notify($1, 'barrier')`, postgres.SandboxChannel); err != nil {
		t.Fatal(err)
	}
	if n := nextNotice(t, f.ctx, l); n != "barrier" {
		t.Fatalf("notified %q before the barrier: the worker was woken for nothing", n)
	}
	revisit, _ := f.open(t, org, verification.EnvTest, lagos("SANDBOX_NO_ACCESS", ""))
	if n := nextNotice(t, f.ctx, l); n != "" {
		t.Fatalf("notice %q; want the worker's wake", n)
	}
	if n := drain(t, f.svc); n != 1 {
		t.Fatalf("the worker made %d advances; want the re-visit", n)
	}
	if c, err := f.store.Case(f.ctx, org, verification.EnvTest, revisit); err != nil || c.Status != verification.Verified {
		t.Fatalf("after the re-visit: %s (%v)", c.Status, err)
	}
	checkHistories(t, f.outbox(t))
	checkCounters(t, f)
}

// nextNotice waits for the next notification on l and returns its payload.
func nextNotice(t *testing.T, ctx context.Context, l *pgdb.Listener) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	n, err := l.Conn().Conn().WaitForNotification(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return n.Payload
}

// An immediate sandbox run that dies midway (its consumer's transaction)
// leaves nothing: no case, no event, no counter; the redelivered event
// then opens and verifies the customer whole, each event once.
func TestImmediateSandboxThatDiesMidwayLeavesNothing(t *testing.T) {
	t.Parallel()
	f := setup(t)
	fs := &failingStore{Store: f.store, failAt: 4} // the first address's IN_PROGRESS
	dying := verification.NewService(fs, time.Now, verification.Sandbox{Delay: 0, Photos: photoSizes, Immediate: true})
	in := verification.CaseInput{CustomerID: ids.New("cus"), OrgID: ids.New("org"), Env: verification.EnvTest, FirstName: "Ngozi",
		LastName: "Okafor", Phone: "+2348031234567", At: time.Now().Add(-time.Minute),
		Addresses: []verification.AddressInput{{ID: ids.New("adr"), Address: lagos("", "")}, {ID: ids.New("adr"), Address: lagos("", "")}}}
	if err := fs.Atomic(f.ctx, func(tx verification.Tx) error { return dying.Open(f.ctx, tx, in) }); !errors.Is(err, errInjected) {
		t.Fatalf("error %v; want the injected one", err)
	}
	var rows int
	if err := f.pool.QueryRow(f.ctx, `SELECT (SELECT count(*) FROM cases) + (SELECT count(*) FROM jobs) + (SELECT count(*) FROM photos)
		+ (SELECT count(*) FROM outbox) + (SELECT count(*) FROM case_counts)`).Scan(&rows); err != nil || rows != 0 {
		t.Fatalf("%d rows left by the dead transaction (%v)", rows, err)
	}
	redelivered := verification.NewService(f.store, time.Now, verification.Sandbox{Delay: 0, Photos: photoSizes, Immediate: true})
	if err := f.store.Atomic(f.ctx, func(tx verification.Tx) error { return redelivered.Open(f.ctx, tx, in) }); err != nil {
		t.Fatal(err)
	}
	evs := f.outbox(t)
	if final := checkHistories(t, evs); final[in.CustomerID].Type != verification.EventCompleted || len(evs) != 9 {
		t.Fatalf("%d events, final %q; want 9 ending in the completion", len(evs), final[in.CustomerID].Type)
	}
	checkCounters(t, f)
}

// checkTwoAddressVisit holds evs to a sandbox visit of two addresses: both
// PENDING events from the opening, then each address through its visit
// (ASSIGNED, IN_PROGRESS, VERIFIED) in turn, then the completion.
func checkTwoAddressVisit(t *testing.T, evs []published, addrs []string) {
	t.Helper()
	var got []string
	for _, e := range evs {
		if e.Type == verification.EventAddressUpdated {
			got = append(got, fmt.Sprintf("%d:%s/%d", slices.Index(addrs, e.Data.AddressID), e.Data.Status, e.Data.Sequence))
		} else {
			got = append(got, e.Type)
		}
	}
	want := "0:PENDING/1 1:PENDING/1 0:ASSIGNED/2 0:IN_PROGRESS/3 0:VERIFIED/4 1:ASSIGNED/2 1:IN_PROGRESS/3 1:VERIFIED/4 verification.completed"
	if strings.Join(got, " ") != want {
		t.Fatalf("events\n got %s\nwant %s", strings.Join(got, " "), want)
	}
}
