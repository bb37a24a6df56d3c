package main

import (
	"fmt"
	"log"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kycfield/kyc/bench/load"
	"github.com/kycfield/kyc/e2e/harness"
)

// The pass criteria of a -find-max step (issue 30).
const (
	maxP99       = 500 * time.Millisecond
	settleWindow = 5 * time.Second // after the step's last POST, the backlog must be gone
)

// stepConfig is the ladder of rates -find-max climbs.
type stepConfig struct {
	start, step, top int
	duration, poll   time.Duration
	// ignoreRenders judges a step without the reports still queued for
	// rendering, to tell the VERIFIED path's capacity from reporting's.
	ignoreRenders bool
}

// stepResult is one rate's outcome.
type stepResult struct {
	rate            int
	sent, verified  int
	failed          int
	sentRate        float64 // POSTs per second the generator managed
	p50, p99        time.Duration
	unverifiedAfter int // the step's customers not yet VERIFIED settleWindow after its last POST
	after           backlog
	afterErr        error
	cpu, xacts      map[string]float64
	drained         time.Duration // from the last POST to no backlog at all
	passed          bool
}

// findMax climbs the ladder until a step fails, and prints each step and
// the highest rate that passed.
func findMax(p *harness.Platform, a *api, cfg stepConfig) {
	g := newGauges(p)
	defer g.close()
	dbs := load.DatabaseNames(p.DatabaseURLs)
	best := 0
	next := 1 // customer number, for unique phones across steps; 0 is the warm-up's
	warmUp(a, g)
	fmt.Printf("find-max: steps of %s from %d/s by %d/s (at most %d/s); each customer polled every %s; pass = 0 failed, POST -> VERIFIED p99 < %s, no backlog %s after the last POST\n",
		cfg.duration, cfg.start, cfg.step, cfg.top, cfg.poll, maxP99, settleWindow)
	for rate := cfg.start; rate <= cfg.top; rate += cfg.step {
		r := runStep(a, g, dbs, p.DatabaseURLs, rate, cfg, &next)
		printStep(r)
		if !r.passed {
			break
		}
		best = rate
	}
	if best == 0 {
		fmt.Printf("highest passing rate: none (the first step, %d/s, failed)\n", cfg.start)
		return
	}
	fmt.Printf("highest passing rate: %d customers/s\n", best)
}

// warmUp sends one customer through the whole pipeline and waits for the
// backlog to clear, so that the first step does not pay for the consumer
// groups joining and the first connections of every pool.
func warmUp(a *api, g *gauges) {
	start := time.Now()
	if _, err := verifyOne(a, 0, 100*time.Millisecond); err != nil {
		log.Fatalf("warm-up: %v", err)
	}
	if b, err := g.waitDrained(time.Minute); err != nil || !b.zero() {
		log.Fatalf("warm-up: backlog %v %v", b, err)
	}
	fmt.Printf("warm-up: one customer VERIFIED and its report rendered in %.1f s\n", time.Since(start).Seconds())
}

// runStep offers rate customers a second for cfg.duration, each followed
// by its own poller, then judges the step settleWindow after the last
// POST and waits for everything to drain before the next step, so that no
// step inherits another's backlog or CPU.
func runStep(a *api, g *gauges, dbs []string, urls map[string]string, rate int, cfg stepConfig, next *int) stepResult {
	r := stepResult{rate: rate}
	xactsBefore := load.Transactions(urls)
	cpuBefore := load.SampleCPU(dbs...)
	var mu sync.Mutex
	var lat []time.Duration
	var pending atomic.Int64
	var wg sync.WaitGroup
	tick := time.NewTicker(time.Second / time.Duration(rate))
	start := time.Now()
	for time.Since(start) < cfg.duration {
		<-tick.C
		i := *next
		*next++
		r.sent++
		pending.Add(1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			took, err := verifyOne(a, i, cfg.poll)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				r.failed++
				if r.failed <= 3 { // the first few say why; the count says how many
					log.Print(err)
				}
			} else {
				lat = append(lat, took)
			}
			pending.Add(-1)
		}()
	}
	tick.Stop()
	lastPost := time.Now()
	r.sentRate = float64(r.sent) / lastPost.Sub(start).Seconds()
	time.Sleep(time.Until(lastPost.Add(settleWindow)))
	r.unverifiedAfter = int(pending.Load())
	r.after, r.afterErr = g.read()
	wg.Wait()
	final, err := g.waitDrained(2 * time.Minute)
	if err != nil || !final.zero() {
		log.Printf("rate %d/s: backlog not drained 2 min after the last POST: %v %v", rate, final, err)
	}
	r.drained = time.Since(lastPost)
	r.cpu = load.CPUSince(load.SampleCPU(dbs...), cpuBefore)
	time.Sleep(1500 * time.Millisecond) // backends report their counts within a second
	r.xacts = load.Transactions(urls)
	for k, v := range xactsBefore {
		r.xacts[k] -= v
	}
	s := load.Summarise("", lat, r.failed, 0)
	r.verified, r.p50, r.p99 = len(lat), s.P50, s.P99
	judged := r.after
	if cfg.ignoreRenders {
		judged.renders = 0
	}
	r.passed = r.failed == 0 && r.p99 < maxP99 && r.unverifiedAfter == 0 && r.afterErr == nil && judged.zero()
	return r
}

func printStep(r stepResult) {
	verdict := "PASS"
	if !r.passed {
		verdict = "FAIL"
	}
	n := float64(max(r.verified, 1))
	total := 0.0
	for _, v := range r.cpu {
		total += v
	}
	delete(r.cpu, "other") // the machine's other work, not the platform's
	xacts := 0.0
	for _, v := range r.xacts {
		xacts += v
	}
	fmt.Printf("step %d/s: %s  sent %d (%.1f/s), VERIFIED %d, failed %d; POST -> VERIFIED p50 %.0f ms p99 %.0f ms\n",
		r.rate, verdict, r.sent, r.sentRate, r.verified, r.failed, load.MS(r.p50), load.MS(r.p99))
	fmt.Printf("  %s after the last POST: %d not yet VERIFIED, %v (err %v); all drained after %.1f s\n",
		settleWindow, r.unverifiedAfter, r.after, r.afterErr, r.drained.Seconds())
	fmt.Printf("  CPU ms per customer (step start to drained): %s\n", load.ByGroup(r.cpu, 1000/n, "%.1f"))
	fmt.Printf("  PostgreSQL transactions per customer %.1f: %s\n", xacts/n, load.ByGroup(r.xacts, 1/n, "%.1f"))
}

// verifyOne creates customer i and polls its status every poll until it
// is VERIFIED; it returns the time from sending the POST to seeing it.
func verifyOne(a *api, i int, poll time.Duration) (time.Duration, error) {
	start := time.Now()
	var c struct{ ID string }
	st, err := a.call("POST", "/api/v1/customers", sandboxCustomer(i), nil, &c)
	if err != nil || st != http.StatusCreated {
		return 0, fmt.Errorf("create: %d %v", st, err)
	}
	deadline := start.Add(30 * time.Second)
	for time.Now().Before(deadline) {
		time.Sleep(poll)
		var v struct {
			OverallStatus string `json:"overallStatus"`
		}
		st, err := a.call("GET", "/api/v1/verification/"+c.ID+"/status", nil, nil, &v)
		if err != nil {
			return 0, fmt.Errorf("status of %s: %v", c.ID, err)
		}
		if st == http.StatusOK && v.OverallStatus == "VERIFIED" {
			return time.Since(start), nil
		}
	}
	return 0, fmt.Errorf("customer %s not VERIFIED within 30 s", c.ID)
}
