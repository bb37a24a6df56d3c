package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/e2e/harness"
	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/eventually"
	"github.com/kycfield/kyc/pkg/kafkatest"
)

// replicated are the services TestReplicasCooperate runs twice:
// auth-billing too, whose usage consumer charges the live addresses.
var replicated = []string{"customer", "verification", "reporting", "webhook", "auth-billing"}

// deliveryCounter is a lender's webhook receiver that counts what it gets
// by event id (the webhook-id header) and keeps each event's type.
type deliveryCounter struct {
	*httptest.Server
	mu     sync.Mutex
	byID   map[string]int
	typeOf map[string]string
	custOf map[string]string // event id -> the customer it is about
}

func newDeliveryCounter(t *testing.T) *deliveryCounter {
	d := &deliveryCounter{byID: map[string]int{}, typeOf: map[string]string{}, custOf: map[string]string{}}
	d.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var body struct {
			Type string
			Data struct{ CustomerID string }
		}
		_ = json.Unmarshal(b, &body)
		id := r.Header.Get("webhook-id")
		d.mu.Lock()
		d.byID[id]++
		d.typeOf[id] = body.Type
		d.custOf[id] = body.Data.CustomerID
		d.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(d.Close)
	return d
}

// completed counts the customers with a verification.completed delivery.
func (d *deliveryCounter) completed() map[string]int {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := map[string]int{}
	for id, typ := range d.typeOf {
		if typ == "verification.completed" {
			out[d.custOf[id]]++
		}
	}
	return out
}

// Two replicas of customer, verification, reporting, webhook and
// auth-billing on the same databases, topics and buckets: 200 sandbox customers and three
// live ones, one replica of each stopped half way. Every customer is
// verified once, gets one report, each event reaches the lender's endpoint
// once, and each live address is charged once.
func TestReplicasCooperate(t *testing.T) {
	t.Parallel()
	reps := map[string]int{}
	for _, s := range replicated {
		reps[s] = 2
	}
	rp, err := harness.StartWith(context.Background(), harness.Options{Replicas: reps})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rp.Stop)
	org := rp.NewOrg(t, "enterprise")
	_, sandboxKey := rp.NewKey(t, org, "test")
	_, liveKey := rp.NewKey(t, org, "live")
	rc := newDeliveryCounter(t)
	// Live endpoints must use https; the sandbox's events make the load.
	r := rp.API(t, "POST", "/api/v1/webhooks", sandboxKey, map[string]any{"url": rc.URL + "/kyc"})
	if r.Status != http.StatusCreated {
		t.Fatalf("register webhook: %d %s", r.Status, r.Body)
	}
	var hook struct{ ID string }
	r.Decode(t, &hook)

	const sandboxCustomers = 200
	ids := make([]string, sandboxCustomers)
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for i := range jobs {
				ids[i] = createOn(t, rp, sandboxKey, newCustomer(nil))
			}
		})
	}
	drains := map[string]time.Duration{}
	var dmu sync.Mutex
	var stops sync.WaitGroup
	for i := range sandboxCustomers {
		if i == sandboxCustomers/2 {
			// Half way, one replica of each service is told to stop while
			// requests, events and deliveries are in flight.
			for _, s := range replicated {
				stops.Go(func() {
					took, err := rp.StopReplica(s, 0)
					if err != nil {
						t.Errorf("stopping a %s replica: %v", s, err)
					}
					dmu.Lock()
					drains[s] = took
					dmu.Unlock()
				})
			}
		}
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	stops.Wait()
	for _, s := range replicated {
		for _, e := range rp.BalancerErrors(s) {
			t.Errorf("%s: a request reached no replica: %s", s, e)
		}
	}
	// Both customer replicas took creates before one stopped (the gateway
	// reaches them in turn).
	if served := rp.Served("customer"); len(served) != 2 || served[0] == 0 || served[1] == 0 {
		t.Errorf("customer replicas served %v requests: want both", served)
	}
	for s, took := range drains {
		t.Logf("%s replica drained and stopped in %s", s, took.Round(time.Millisecond))
		if took > 20*time.Second {
			t.Errorf("%s took %s to stop, past the 20 s drain bound", s, took)
		}
	}
	live := liveVisits(t, rp, liveKey, 3)

	all := append(append([]string(nil), ids...), live...)
	for i, id := range all {
		key := sandboxKey
		if i >= len(ids) {
			key = liveKey
		}
		waitVerifiedOnce(t, rp, key, id)
	}
	eventually.Value(t, 60*time.Second, "a verification.completed delivery for every customer", func() (int, bool) {
		n := len(rc.completed())
		return n, n == len(ids)
	})
	// Rendering is the slow part (photo thumbnails and PDF, one outcome
	// at a time per consumer; several times slower under -race).
	reports := 0
	eventually.True(t, 4*time.Minute, "a report for every customer", func() bool {
		if n := countReports(t, rp); n != reports {
			reports = n
			t.Logf("%d of %d reports rendered", n, len(all))
		}
		return reports == len(all)
	})
	waitBillableOn(t, rp, liveKey, int64(len(live)))
	// Barrier: every consumer of the outcomes (billing, reporting, the
	// webhook schedule, customer) goes past one last event on each
	// partition, so a redelivered outcome has been applied or dropped; and
	// the delivery log has nothing left to send, so a resend has arrived.
	kafkatest.Barrier(t, rp.Bus, rp.Bus.Topic(event.TopicVerification), org, 2*time.Minute)
	eventually.Value(t, time.Minute, "no webhook delivery left to send", func() (string, bool) {
		var left []string
		for _, status := range []string{"pending", "retrying"} {
			r := rp.API(t, "GET", "/api/v1/webhooks/"+hook.ID+"/deliveries?status="+status, sandboxKey, nil)
			var l struct{ Deliveries []struct{ ID string } }
			r.Decode(t, &l)
			if r.Status != http.StatusOK || len(l.Deliveries) > 0 {
				left = append(left, fmt.Sprintf("%s: %d %d", status, r.Status, len(l.Deliveries)))
			}
		}
		return strings.Join(left, ", "), len(left) == 0
	})

	rc.mu.Lock()
	t.Logf("%d customers verified, %d events delivered, %d reports, requests per replica: customer %v, verification %v",
		len(all), len(rc.byID), countReports(t, rp), rp.Served("customer"), rp.Served("verification"))
	for id, n := range rc.byID {
		if n != 1 {
			t.Errorf("event %s (%s) delivered %d times", id, rc.typeOf[id], n)
		}
	}
	rc.mu.Unlock()
	for cust, n := range rc.completed() {
		if n != 1 {
			t.Errorf("customer %s: %d verification.completed events", cust, n)
		}
	}
	reportsPerVersion(t, rp, len(all))
	var rep usageReport
	rp.API(t, "GET", "/api/v1/billing/usage", liveKey, nil).Decode(t, &rep)
	if rep.BillableVerifications != int64(len(live)) {
		t.Errorf("live addresses charged %d times, want %d", rep.BillableVerifications, len(live))
	}
}

func createOn(t *testing.T, p *harness.Platform, key string, body map[string]any) string {
	r := p.Do(t, harness.Request{Method: "POST", URL: p.GatewayURL + "/api/v1/customers", Key: key, Body: body,
		Header: map[string]string{"Idempotency-Key": uuid.NewString()}})
	if r.Status != http.StatusCreated {
		t.Errorf("create: %d %s", r.Status, r.Body)
		return ""
	}
	var c customerView
	r.Decode(t, &c)
	return c.ID
}

// waitVerifiedOnce waits until the customer is VERIFIED and checks that
// each address went through VERIFIED once in its timeline.
func waitVerifiedOnce(t *testing.T, p *harness.Platform, key, id string) {
	t.Helper()
	if id == "" {
		return // its creation failed, already reported
	}
	type status struct {
		OverallStatus string `json:"overallStatus"`
		Addresses     []struct {
			VerificationData *struct {
				Timeline []struct{ Status string } `json:"timeline"`
			} `json:"verificationData"`
		} `json:"addresses"`
	}
	var s status
	last := eventually.Value(t, 60*time.Second, "customer "+id+" VERIFIED", func() (string, bool) {
		r := p.API(t, "GET", "/api/v1/verification/"+id+"/status", key, nil)
		s = status{}
		if r.Status == http.StatusOK {
			r.Decode(t, &s)
		}
		return fmt.Sprintf("%d %s", r.Status, r.Body), r.Status == http.StatusOK && s.OverallStatus == "VERIFIED"
	})
	for _, a := range s.Addresses {
		n := 0
		for _, step := range a.VerificationData.Timeline {
			if step.Status == "VERIFIED" {
				n++
			}
		}
		if n != 1 {
			t.Errorf("customer %s: an address reached VERIFIED %d times: %s", id, n, last)
		}
	}
}

// liveVisits creates n live customers in Ilorin West (Kwara), and an
// agent covering it visits and verifies each of them through the gateway.
func liveVisits(t *testing.T, p *harness.Platform, key string, n int) []string {
	t.Helper()
	lga := "Ilorin West"
	id, ph, code := agentWithCode(t, p, "Adewale Johnson", []string{"Kwara"}, []string{lga})
	agent := &fieldAgent{t: t, id: id, token: signInAgent(t, p, ph, code)}
	addr := map[string]any{"streetNumber": "7", "streetName": "Taiwo Road", "city": "Ilorin", "lga": lga, "state": "Kwara"}
	done := map[string]any{"outcome": "VERIFIED", "verifiedAddress": "7 Taiwo Road, Ilorin", "latitude": 8.4966, "longitude": 4.5422,
		"accuracy": 8, "resident": map[string]any{"name": "Chidi Okafor", "relationship": "Brother", "yearsAtAddress": 6},
		"building": map[string]any{"type": "Duplex", "colour": "White", "gatePresent": true}}
	var ids []string
	for range n {
		id := createOn(t, p, key, newCustomer(map[string]any{"addresses": []map[string]any{addr}}))
		var c struct {
			Addresses []struct{ ID, Status string }
		}
		eventually.True(t, 30*time.Second, "the live address assigned", func() bool {
			if r := p.API(t, "GET", "/api/v1/verification/"+id+"/status", key, nil); r.Status == http.StatusOK {
				r.Decode(t, &c)
			}
			return len(c.Addresses) == 1 && c.Addresses[0].Status == "ASSIGNED"
		})
		adr := c.Addresses[0].ID
		if r := agent.callOn(p, "POST", "/tasks/"+adr+"/check-in", map[string]any{"latitude": 8.4966, "longitude": 4.5421, "accuracy": 9}); r.Status != http.StatusOK {
			t.Fatalf("check-in: %d %s", r.Status, r.Body)
		}
		for _, tag := range []string{"building_front", "street_view"} {
			if r := agent.photoOn(p, adr, tag); r.Status != http.StatusCreated {
				t.Fatalf("photo: %d %s", r.Status, r.Body)
			}
		}
		if r := agent.callOn(p, "POST", "/tasks/"+adr+"/complete", done); r.Status != http.StatusOK {
			t.Fatalf("complete: %d %s", r.Status, r.Body)
		}
		ids = append(ids, id)
	}
	return ids
}

func (a *fieldAgent) callOn(p *harness.Platform, method, path string, body any) harness.Response {
	return p.Do(a.t, harness.Request{Method: method, URL: p.GatewayURL + "/agent/v1" + path, Body: body,
		Header: map[string]string{"Authorization": "Bearer " + a.token, "Idempotency-Key": uuid.NewString()}})
}

func (a *fieldAgent) photoOn(p *harness.Platform, addressID, tag string) harness.Response {
	body, ctype := photoForm(tag, testJPEG(nil))
	return p.Do(a.t, harness.Request{Method: "POST", URL: p.GatewayURL + "/agent/v1/tasks/" + addressID + "/photos", Body: body,
		Header: map[string]string{"Authorization": "Bearer " + a.token, "Content-Type": ctype, "Idempotency-Key": uuid.NewString()}})
}

func waitBillableOn(t *testing.T, p *harness.Platform, key string, want int64) {
	t.Helper()
	eventually.Value(t, 30*time.Second, fmt.Sprintf("%d billable verifications", want), func() (int64, bool) {
		var rep usageReport
		p.API(t, "GET", "/api/v1/billing/usage", key, nil).Decode(t, &rep)
		return rep.BillableVerifications, rep.BillableVerifications >= want
	})
}

// countReports counts the rendered reports in the reporting database: a
// redelivered outcome rendered twice would show as a second row.
func countReports(t *testing.T, p *harness.Platform) int {
	var n int
	queryReporting(t, p, func(c *pgx.Conn) error {
		return c.QueryRow(context.Background(), `SELECT count(*) FROM reports`).Scan(&n)
	})
	return n
}

// reportsPerVersion checks one report per customer and version, and that
// each customer (one outcome each) has exactly version 1.
func reportsPerVersion(t *testing.T, p *harness.Platform, customers int) {
	t.Helper()
	var rows, distinct, firsts int
	queryReporting(t, p, func(c *pgx.Conn) error {
		return c.QueryRow(context.Background(), `SELECT count(*), count(DISTINCT (customer_id, version)),
			count(*) FILTER (WHERE version = 1) FROM reports`).Scan(&rows, &distinct, &firsts)
	})
	if rows != customers || distinct != customers || firsts != customers {
		t.Errorf("reports: %d rows, %d distinct (customer, version), %d first versions; want %d of each", rows, distinct, firsts, customers)
	}
}

func queryReporting(t *testing.T, p *harness.Platform, q func(*pgx.Conn) error) {
	t.Helper()
	c, err := pgx.Connect(context.Background(), p.DatabaseURLs["reporting"])
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	if err := q(c); err != nil {
		t.Fatal(err)
	}
}
