package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kycfield/kyc/e2e/harness"
	"github.com/kycfield/kyc/pkg/eventually"
)

// burstSize is the sandbox customers TestSandboxBurstEndsOnceEach creates
// at once: enough to queue work at every stage on two cores (the consumers,
// the sandbox worker, the renders, the webhook dispatcher), few enough to
// keep the test's cost small. sandboxbench -burst runs the large one.
const burstSize = 300

// A lender's batch of sandbox customers, created as fast as 32 clients
// can, ends the way one customer does, for each of them: VERIFIED, one
// report, exactly one verification.completed and one report.ready webhook,
// each validly signed, and no message delivered twice; afterwards nothing
// is left queued anywhere (every consumer's lag and every outbox at 0).
//
// Not parallel: the lag and outbox gauges are the whole platform's, and
// other tests' events would keep them from settling; the sequential
// tests run before the parallel ones start.
func TestSandboxBurstEndsOnceEach(t *testing.T) {
	_, key := P.NewKey(t, P.NewOrg(t, "enterprise"), "test")
	hooks := newHookReceiver(t, nil)
	e := registerHook(t, key, hooks.URL, map[string]any{"events": []string{"verification.completed", "report.ready"}})
	ids := createBurst(t, key, burstSize)

	eventually.Value(t, 3*time.Minute, "every customer VERIFIED (stats)", func() (string, bool) {
		var s struct{ Total, Verified, Pending int }
		P.API(t, "GET", "/api/v1/verification/stats", key, nil).Decode(t, &s)
		return fmt.Sprintf("%+v", s), s.Verified == burstSize && s.Total == burstSize
	})
	// The list is the customer service's read model, fed by the events
	// the statistics' counters were written with: it follows them by a
	// consumer hop, so it is waited for too.
	var listed map[string]bool
	eventually.Value(t, 3*time.Minute, "every customer in the VERIFIED list", func() (int, bool) {
		listed = verifiedCustomers(t, key)
		return len(listed), len(listed) >= burstSize
	})
	for _, id := range ids {
		if !listed[id] {
			t.Errorf("customer %s is not in the VERIFIED list", id)
		}
	}
	if len(listed) != burstSize {
		t.Errorf("%d VERIFIED customers listed, want %d", len(listed), burstSize)
	}

	eventually.Value(t, 3*time.Minute, "a report.ready webhook for every customer", func() (int, bool) {
		n := len(hooks.requests())
		return n, n >= 2*burstSize
	})
	// Barrier: once every consumer has caught up, every outbox is
	// published and the endpoint has no delivery left to attempt, no
	// further webhook can come, so the counts below are final.
	eventually.Value(t, 3*time.Minute, "no backlog anywhere", func() (string, bool) {
		lag, outbox := platformBacklog(t)
		due := len(hookDeliveries(t, key, e.ID, "?status=pending&limit=1")) + len(hookDeliveries(t, key, e.ID, "?status=retrying&limit=1"))
		return fmt.Sprintf("consumer lag %d, outbox %d, deliveries due %d", lag, outbox, due), lag == 0 && outbox == 0 && due == 0
	})

	_ = hooks.ofType(t, e.Secret, "") // verifies every delivery's signature
	per := map[string]map[string]int{"verification.completed": {}, "report.ready": {}}
	seen := map[string]bool{}
	for _, r := range hooks.requests() {
		var b hookBody
		if err := json.Unmarshal(r.body, &b); err != nil || per[b.Type] == nil {
			t.Fatalf("unexpected delivery %s", r.body)
		}
		per[b.Type][customerOf(r.body)]++
		if id := r.header.Get("webhook-id"); seen[id] {
			t.Errorf("message %s delivered twice", id)
		}
		seen[r.header.Get("webhook-id")] = true
	}
	for typ, n := range per {
		for _, id := range ids {
			if n[id] != 1 {
				t.Errorf("customer %s: %d %s webhooks, want 1", id, n[id], typ)
			}
		}
		if len(n) != burstSize {
			t.Errorf("%s webhooks name %d customers, want %d", typ, len(n), burstSize)
		}
	}
	// The report each webhook announced is there to download (a sample:
	// every download is the same code path).
	for i := 0; i < len(ids); i += 30 {
		r := P.API(t, "GET", "/api/v1/customers/"+ids[i]+"/report", key, nil)
		if r.Status != http.StatusOK || !strings.HasPrefix(string(r.Body), "%PDF-") {
			t.Errorf("report of %s: %d %.40q", ids[i], r.Status, r.Body)
		}
	}
}

// createBurst creates n sandbox customers from 32 concurrent clients and
// returns their ids. Phones are numbered, so that none is a duplicate of
// another within the organization.
func createBurst(t *testing.T, key string, n int) []string {
	t.Helper()
	var mu sync.Mutex
	var ids []string
	next := make(chan int)
	var wg sync.WaitGroup
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				c := newCustomer(map[string]any{"phone": fmt.Sprintf("+23490%08d", i)})
				r := P.API(t, "POST", "/api/v1/customers", key, c)
				if r.Status != http.StatusCreated {
					t.Errorf("create %d: %d %s", i, r.Status, r.Body)
					continue
				}
				var cu struct{ ID string }
				r.Decode(t, &cu)
				mu.Lock()
				ids = append(ids, cu.ID)
				mu.Unlock()
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	if len(ids) != n {
		t.Fatalf("%d of %d customers created", len(ids), n)
	}
	return ids
}

// verifiedCustomers pages through the VERIFIED customers of the key's
// organization and environment.
func verifiedCustomers(t *testing.T, key string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	path := "/api/v1/customers?status=VERIFIED&limit=100"
	for {
		r := P.API(t, "GET", path, key, nil)
		if r.Status != http.StatusOK {
			t.Fatalf("list: %d %s", r.Status, r.Body)
		}
		var page struct {
			Customers  []struct{ ID string }
			Pagination struct {
				HasNext    bool
				NextCursor string
			}
		}
		r.Decode(t, &page)
		for _, c := range page.Customers {
			out[c.ID] = true
		}
		if !page.Pagination.HasNext {
			return out
		}
		path = "/api/v1/customers?status=VERIFIED&limit=100&cursor=" + page.Pagination.NextCursor
	}
}

// platformBacklog sums, over every service's /metrics, the messages its
// consumers have yet to apply (kyc_consumer_lag) and the events its
// outbox has yet to publish (kyc_outbox_backlog).
func platformBacklog(t *testing.T) (lag, outbox int) {
	t.Helper()
	for _, u := range P.URLs {
		text := scrapeMetrics(t, u+"/metrics")
		l, _, err := harness.GaugeSum(text, "kyc_consumer_lag")
		if err != nil {
			t.Fatal(err)
		}
		o, _, err := harness.GaugeSum(text, "kyc_outbox_backlog")
		if err != nil {
			t.Fatal(err)
		}
		lag, outbox = lag+int(l), outbox+int(o)
	}
	return lag, outbox
}
