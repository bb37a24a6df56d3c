package main

import (
	"encoding/json"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/kycfield/kyc/bench/load"
	"github.com/kycfield/kyc/e2e/harness"
)

// maxInFlight bounds the POSTs the burst keeps open: above capacity an
// open loop would otherwise pile up goroutines and connections without
// limit; when it is reached the generator waits, which shows as a sent
// rate below the offered one.
const maxInFlight = 512

// receiver is the lender's webhook endpoint on loopback: it counts each
// customer's verification.completed and every message id it has seen
// (a message delivered twice is a duplicate the lender would notice).
type receiver struct {
	url       string
	mu        sync.Mutex
	completed map[string]int // customer id -> verification.completed deliveries
	ids       map[string]int // webhook-id -> deliveries
	other     map[string]int // other event types
	last      time.Time
}

func newReceiver() *receiver {
	rc := &receiver{completed: map[string]int{}, ids: map[string]int{}, other: map[string]int{}}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	rc.url = "http://" + l.Addr().String() + "/kyc"
	go func() {
		_ = http.Serve(l, http.HandlerFunc(rc.serve))
	}()
	return rc
}

func (rc *receiver) serve(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	var e struct {
		Type string
		Data struct {
			CustomerID string `json:"customerId"`
		}
	}
	_ = json.Unmarshal(b, &e)
	rc.mu.Lock()
	rc.ids[r.Header.Get("webhook-id")]++
	if e.Type == "verification.completed" {
		rc.completed[e.Data.CustomerID]++
	} else {
		rc.other[e.Type]++
	}
	rc.last = time.Now()
	rc.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

// tally is what the receiver holds for customers: how many got exactly
// one verification.completed, how many none, how many more than one, and
// the message ids delivered more than once.
func (rc *receiver) tally(customers []string) (one, none, many, dupIDs int, last time.Time) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for _, id := range customers {
		switch rc.completed[id] {
		case 0:
			none++
		case 1:
			one++
		default:
			many++
		}
	}
	for _, n := range rc.ids {
		if n > 1 {
			dupIDs++
		}
	}
	return one, none, many, dupIDs, rc.last
}

// burstResult is what the burst's POSTs saw.
type burstResult struct {
	ids      []string
	created  []time.Duration // each customer's first try to its 201, retries and their waits included
	answered []time.Duration // every answered POST, whatever its status
	shedLat  []time.Duration // the answers that were 503 SERVICE_OVERLOADED
	failed   int             // customers never created
	retries  int             // POSTs sent again under the same Idempotency-Key
	shed     int             // 503 SERVICE_OVERLOADED answers
	first    time.Time
	lastPost time.Time
}

// burst creates n customers at rate per second (one webhook endpoint on
// loopback registered first), samples the platform every second while
// it works, then checks that every customer ended VERIFIED exactly once
// with one report and one verification.completed webhook.
func burst(p *harness.Platform, a *api, n, rate int) {
	g := newGauges(p)
	defer g.close()
	rc := newReceiver()
	st, err := a.call("POST", "/api/v1/webhooks", map[string]any{"url": rc.url, "events": []string{"verification.completed"}}, nil, nil)
	if err != nil || st != http.StatusCreated {
		log.Fatalf("register webhook: %d %v", st, err)
	}
	warmUp(a, g)
	before, _, err := a.verifiedCount() // the warm-up's customer
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("burst: %d sandbox customers offered at %d/s, at most %d POSTs in flight; webhook endpoint %s; gateway API_MAX_IN_FLIGHT=%q (empty: no admission bound in the harness)\n",
		n, rate, maxInFlight, rc.url, os.Getenv("API_MAX_IN_FLIGHT"))
	stop := make(chan struct{})
	samples := make(chan []progress, 1)
	go func() { samples <- watch(a, g, before, stop) }()
	res := postAll(a, n, rate)
	drained := waitVerified(a, before+len(res.ids), 15*time.Minute)
	close(stop)
	seen := <-samples
	printBurst(res, drained, seen)
	check(a, g, rc, res.ids)
}

// postAll sends n creates at rate (an open loop: a customer waiting to
// retry does not hold back the next), each retried under one
// Idempotency-Key as a client would: after a 503 with Retry-After, that
// long later (plus up to a fifth more, so that the shed do not all come
// back in the same millisecond), as often as it takes; after any other
// failure, a second later, three times at most. At most maxInFlight
// POSTs are open at once.
func postAll(a *api, n, rate int) burstResult {
	var res burstResult
	var mu sync.Mutex
	var wg sync.WaitGroup
	slots := make(chan struct{}, maxInFlight)
	tick := time.NewTicker(time.Second / time.Duration(rate))
	defer tick.Stop()
	res.first = time.Now()
	for i := 1; i <= n; i++ {
		<-tick.C
		wg.Add(1)
		go func() {
			defer wg.Done()
			o := createOne(a, i, slots)
			mu.Lock()
			defer mu.Unlock()
			res.retries += o.attempts - 1
			res.shed += len(o.shed)
			res.answered = append(res.answered, o.answered...)
			res.shedLat = append(res.shedLat, o.shed...)
			if o.err != nil {
				res.failed++
				log.Print(o.err)
				return
			}
			res.ids = append(res.ids, o.id)
			res.created = append(res.created, o.took)
		}()
	}
	wg.Wait()
	res.lastPost = time.Now()
	return res
}

// outcome is one customer's creation: its id, first try to 201, every
// answer's latency and the 503s' among them.
type outcome struct {
	id             string
	took           time.Duration
	attempts       int
	answered, shed []time.Duration
	err            error
}

func createOne(a *api, i int, slots chan struct{}) (o outcome) {
	key := map[string]string{"Idempotency-Key": "burst-" + strconv.Itoa(i)}
	start := time.Now()
	failures := 0
	for failures < 3 {
		var c struct{ ID string }
		slots <- struct{}{}
		sent := time.Now()
		st, h, err := a.callHeader("POST", "/api/v1/customers", sandboxCustomer(i), key, &c)
		took := time.Since(sent)
		<-slots
		o.attempts++
		if err == nil || st != 0 {
			o.answered = append(o.answered, took)
		}
		if err == nil && st == http.StatusCreated {
			o.id, o.took, o.err = c.ID, time.Since(start), nil
			return o
		}
		if secs, perr := strconv.Atoi(h.Get("Retry-After")); st == http.StatusServiceUnavailable && perr == nil && secs > 0 {
			o.shed = append(o.shed, took)
			wait := time.Duration(secs) * time.Second
			time.Sleep(wait + rand.N(wait/5))
			continue
		}
		failures++
		o.err = fmt.Errorf("create %d (attempt %d): %d %v", i, o.attempts, st, err)
		time.Sleep(time.Second)
	}
	return o
}

// progress is one second's sample of the platform while the burst runs.
type progress struct {
	at       time.Time
	verified int
	backlog  backlog
}

// watch samples VERIFIED customers and the backlog every second until
// stop, printing a line every 10 s; before is the VERIFIED customers
// that are not the burst's.
func watch(a *api, g *gauges, before int, stop <-chan struct{}) []progress {
	var out []progress
	start := time.Now()
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return out
		case <-t.C:
		}
		v, _, err := a.verifiedCount()
		b, berr := g.read()
		if err != nil || berr != nil {
			log.Printf("sample: %v %v", err, berr)
			continue
		}
		out = append(out, progress{time.Now(), v - before, b})
		if len(out)%10 == 0 {
			fmt.Printf("  %4.0f s: %d VERIFIED, %v\n", time.Since(start).Seconds(), v, b)
		}
	}
}

// waitVerified waits until want customers are VERIFIED and returns when
// that was (the zero time if limit passed first).
func waitVerified(a *api, want int, limit time.Duration) time.Time {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if v, _, err := a.verifiedCount(); err == nil && v >= want {
			return time.Now()
		}
		time.Sleep(100 * time.Millisecond)
	}
	return time.Time{}
}

func printBurst(res burstResult, drained time.Time, seen []progress) {
	sending := res.lastPost.Sub(res.first)
	fmt.Printf("  POSTs: %d created in %.1f s (%.1f/s), %d failed; %d sent in all, %d retries, %d answered 503 SERVICE_OVERLOADED\n",
		len(res.ids), sending.Seconds(), float64(len(res.ids))/sending.Seconds(), res.failed, len(res.answered), res.retries, res.shed)
	for _, l := range []struct {
		name string
		lat  []time.Duration
	}{{"every POST answered", res.answered}, {"the 503s among them", res.shedLat}, {"first try to 201 (retries and waits included)", res.created}} {
		s := load.Summarise("", l.lat, 0, 0)
		fmt.Printf("    %s: p50 %.1f ms, p99 %.1f ms, max %.1f ms (%d)\n", l.name, load.MS(s.P50), load.MS(s.P99), load.MS(s.Max), len(l.lat))
	}
	var maxLag, maxLargest, maxOutbox, maxRenders int64
	var atBrokerMax, atShortest backlog // the samples where the broker's lag was largest, and where the gauge fell furthest below it
	verifiedAtLastPost := 0
	for _, p := range seen {
		maxLag, maxLargest = max(maxLag, p.backlog.lag), max(maxLargest, p.backlog.lagLargest)
		if p.backlog.brokerLag > atBrokerMax.brokerLag {
			atBrokerMax = p.backlog
		}
		if p.backlog.brokerLag-p.backlog.lag > atShortest.brokerLag-atShortest.lag {
			atShortest = p.backlog
		}
		maxOutbox, maxRenders = max(maxOutbox, p.backlog.outbox), max(maxRenders, p.backlog.renders)
		if !p.at.After(res.lastPost) {
			verifiedAtLastPost = p.verified
		}
	}
	if drained.IsZero() {
		fmt.Printf("  NOT all VERIFIED within the limit\n")
	} else {
		d := drained.Sub(res.lastPost)
		fmt.Printf("  all %d VERIFIED %.1f s after the first POST, %.1f s after the last; %d were VERIFIED at the last POST, so the drain ran at %.1f customers/s; overall %.1f customers/s\n",
			len(res.ids), drained.Sub(res.first).Seconds(), d.Seconds(), verifiedAtLastPost,
			float64(len(res.ids)-verifiedAtLastPost)/d.Seconds(), float64(len(res.ids))/drained.Sub(res.first).Seconds())
	}
	fmt.Printf("  largest backlog seen (1 s samples): kyc_consumer_lag %d over all consumers (one consumer %d), outbox %d, renders queued %d\n",
		maxLag, maxLargest, maxOutbox, maxRenders)
	fmt.Printf("  kyc_consumer_lag against the broker's committed offsets, same samples: where the broker's was largest, gauge %d, broker %d; the gauge furthest below, gauge %d, broker %d\n",
		atBrokerMax.lag, atBrokerMax.brokerLag, atShortest.lag, atShortest.brokerLag)
}

// check waits for the reports and webhooks to trail the last VERIFIED,
// then checks each customer: VERIFIED in the list, one report, one
// verification.completed at the receiver, and the backlog gone.
func check(a *api, g *gauges, rc *receiver, ids []string) {
	start := time.Now()
	deadline := start.Add(10 * time.Minute)
	for time.Now().Before(deadline) {
		reports, _, err := g.reportsPerCustomer()
		one, _, _, _, _ := rc.tally(ids)
		if err == nil && reports >= len(ids) && one >= len(ids) {
			break
		}
		time.Sleep(time.Second)
	}
	fmt.Printf("  reports and webhooks complete %.1f s after every customer was VERIFIED\n", time.Since(start).Seconds())
	final, err := g.waitDrained(5 * time.Minute)
	fmt.Printf("  backlog at the end: %v (err %v)\n", final, err)

	verified, err := a.verifiedIDs()
	missing := 0
	for _, id := range ids {
		if !verified[id] {
			missing++
		}
	}
	_, total, _ := a.verifiedCount()
	fmt.Printf("  customers: %d created, %d VERIFIED in the list (%d of ours missing, list err %v), %d in the stats' total\n", len(ids), len(verified), missing, err, total)
	reports, extra, err := g.reportsPerCustomer()
	fmt.Printf("  reports: %d customers with a report, %d extra versions (err %v)", reports, extra, err)
	bad := 0
	for i := 0; i < len(ids); i += max(len(ids)/20, 1) {
		if st, err := a.call("GET", "/api/v1/customers/"+ids[i]+"/report", nil, nil, nil); err != nil || st != http.StatusOK {
			bad++
		}
	}
	fmt.Printf("; %d of 20 sampled downloads failed\n", bad)
	one, none, many, dupIDs, last := rc.tally(ids)
	rc.mu.Lock()
	other := fmt.Sprint(rc.other)
	rc.mu.Unlock()
	fmt.Printf("  webhooks: %d customers with exactly one verification.completed, %d with none, %d with more; %d message ids delivered twice or more; other types %s; last delivery %s\n",
		one, none, many, dupIDs, other, last.Format(time.TimeOnly))
}
