// Command sandboxbench measures the sandbox end to end: from POST
// /api/v1/customers to the customer being VERIFIED on the status
// endpoint, with the sandbox delay at 0, at a steady rate of new
// customers, and breaks the time down by stage using the timestamps the
// platform records (customer creation, the verification context's first
// transition, the sandbox's final one). It then waits for every
// customer's report and prints the CPU each process on the machine spent
// per customer over the whole run (load.SampleCPU: this process runs every
// service, the gateway and the load clients; then PostgreSQL, devkafka,
// MinIO, Redis and the machine's other work; "postgres" is only the
// backends of this run's databases, "postgres-shared" the server's own
// processes and other sessions').
//
// -find-max climbs a ladder of rates (-start, -step, -max-rate; each
// step -step-duration long, every customer polled every -step-poll) and
// stops at the first step that fails issue 30's criteria: a step passes
// with 0 failed, POST -> VERIFIED p99 under 500 ms, and nothing left 5 s
// after its last POST (every customer VERIFIED, kyc_consumer_lag and
// kyc_outbox_backlog 0 on every service's /metrics, no report queued).
// Each step prints the rate offered and sent, p50/p99, the backlog 5 s
// after, the CPU each process spent per customer and PostgreSQL's
// transactions per customer; the run ends with the highest passing rate.
// Steps are separated by a full drain, so none inherits another's work.
// -ignore-renders leaves the reports still queued out of the verdict, to
// tell the VERIFIED path's capacity from the renderer's.
//
// -burst N -rate R registers a webhook endpoint on a loopback receiver
// (the gateway's admission bound is the environment's API_MAX_IN_FLIGHT;
// the harness leaves it off when unset),
// creates N customers at R/s (at most 512 POSTs in flight; each retried
// under one Idempotency-Key, as a client would: after a 503 with
// Retry-After that long later, as often as it takes) and reads progress
// from the statistics endpoint and /metrics every second, with no poller
// per customer. It prints the POSTs sent, retried and shed (503
// SERVICE_OVERLOADED), the p50/p99/max of every answer, of the shed ones
// and of each customer's first try to its 201, the time from the last
// POST until all are VERIFIED and the drain rate, the largest consumer
// lag seen, and checks every customer: VERIFIED in the list, one report,
// exactly one verification.completed at the receiver, no message id
// delivered twice.
//
//	go run ./cmd/sandboxbench -rate 20 -duration 60s
//	go run ./cmd/sandboxbench -find-max -start 50 -step 25 -step-duration 30s
//	go run ./cmd/sandboxbench -burst 20000 -rate 300
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net/http"
	"sync"
	"time"

	"github.com/kycfield/kyc/bench/load"
	"github.com/kycfield/kyc/e2e/harness"
)

// sample is one customer's journey.
type sample struct {
	created  time.Duration // POST answered
	consumed time.Duration // the verification context opened the job (PENDING)
	verified time.Duration // the sandbox made it VERIFIED
	visible  time.Duration // the status endpoint showed VERIFIED
}

func main() {
	rate := flag.Int("rate", 20, "new customers per second")
	dur := flag.Duration("duration", 60*time.Second, "how long to create customers")
	poll := flag.Duration("poll", 10*time.Millisecond, "how often each customer's status is polled")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the run (labelled by component: go tool pprof -tags) here")
	findMaxMode := flag.Bool("find-max", false, "find the highest rate that passes issue 30's criteria, in steps")
	var steps stepConfig
	flag.IntVar(&steps.start, "start", 50, "-find-max: the first step's rate (customers/s)")
	flag.IntVar(&steps.step, "step", 25, "-find-max: how much each step adds (customers/s)")
	flag.IntVar(&steps.top, "max-rate", 400, "-find-max: the last step's rate at most")
	flag.DurationVar(&steps.duration, "step-duration", 30*time.Second, "-find-max: how long each step creates customers")
	flag.DurationVar(&steps.poll, "step-poll", 100*time.Millisecond, "-find-max: how often each customer's status is polled")
	flag.BoolVar(&steps.ignoreRenders, "ignore-renders", false, "-find-max: pass a step whose only backlog is reports queued for rendering")
	burstN := flag.Int("burst", 0, "create this many customers at -rate, then check each (no per-customer polling)")
	flag.Parse()
	ctx := context.Background()
	p, err := harness.Start(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer p.Stop()
	t := load.TB{}
	_, key := p.NewKey(t, p.NewOrg(t, "enterprise"), "test")
	switch {
	case *findMaxMode:
		findMax(p, newAPI(p, key, 1024), steps)
		return
	case *burstN > 0:
		burst(p, newAPI(p, key, maxInFlight+64), *burstN, *rate)
		return
	}

	var mu sync.Mutex
	var samples []sample
	failed := 0
	var wg sync.WaitGroup
	dbs := load.DatabaseNames(p.DatabaseURLs)
	xactsBefore := load.Transactions(p.DatabaseURLs)
	cpuBefore := load.SampleCPU(dbs...)
	runStart := time.Now()
	stopProfile := load.Profile(*cpuprofile)
	tick := time.NewTicker(time.Second / time.Duration(*rate))
	defer tick.Stop()
	end := time.Now().Add(*dur)
	for i := 0; time.Now().Before(end); i++ {
		<-tick.C
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := journey(p, key, i, *poll)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				failed++
				log.Print(err)
				return
			}
			samples = append(samples, s)
		}()
	}
	wg.Wait()
	reported, reports := load.WaitReports(p.DatabaseURLs["reporting"], len(samples), time.Minute)
	stopProfile()
	cpu := load.CPUSince(load.SampleCPU(dbs...), cpuBefore)
	time.Sleep(1500 * time.Millisecond) // backends report their counts within a second
	xacts := load.Transactions(p.DatabaseURLs)
	for k, v := range xactsBefore {
		xacts[k] -= v
	}
	report(samples, failed, *rate, *dur)
	fmt.Printf("  every report rendered %.1f s after the first POST (%d of %d)\n", reported.Sub(runStart).Seconds(), reports, len(samples))
	fmt.Printf("  CPU ms per customer, first POST to last report: %s\n", load.ByGroup(cpu, 1000/float64(max(len(samples), 1)), "%.2f"))
	fmt.Printf("  PostgreSQL transactions per customer, by service (status polls included): %s\n", load.ByGroup(xacts, 1/float64(max(len(samples), 1)), "%.1f"))
}

// journey creates one customer and polls until it is VERIFIED.
func journey(p *harness.Platform, key string, i int, poll time.Duration) (sample, error) {
	t := load.TB{}
	start := time.Now()
	r := p.API(t, "POST", "/api/v1/customers", key, map[string]any{"firstName": "Ngozi", "lastName": "Okafor",
		"phone":     fmt.Sprintf("+23481%08d", i),
		"addresses": []map[string]any{{"streetName": "Adeola Odeku Street", "city": "Victoria Island", "state": "Lagos"}}})
	if r.Status != http.StatusCreated {
		return sample{}, fmt.Errorf("create: %d %s", r.Status, r.Body)
	}
	s := sample{created: time.Since(start)}
	var c struct {
		ID        string
		CreatedAt time.Time `json:"createdAt"`
	}
	r.Decode(t, &c)
	deadline := start.Add(30 * time.Second)
	for time.Now().Before(deadline) {
		st := p.API(t, "GET", "/api/v1/verification/"+c.ID+"/status", key, nil)
		var v struct {
			OverallStatus string `json:"overallStatus"`
			Addresses     []struct {
				VerificationData *struct {
					Timeline []struct {
						Status string
						At     time.Time
					} `json:"timeline"`
				} `json:"verificationData"`
			} `json:"addresses"`
		}
		if st.Status == http.StatusOK {
			st.Decode(t, &v)
		}
		if v.OverallStatus == "VERIFIED" && len(v.Addresses) == 1 && v.Addresses[0].VerificationData != nil {
			s.visible = time.Since(start)
			tl := v.Addresses[0].VerificationData.Timeline
			// Offsets from the customer's own creation time, on the
			// platform's clock (the same machine's).
			base := c.CreatedAt
			s.consumed = s.created + tl[0].At.Sub(base)
			s.verified = s.created + tl[len(tl)-1].At.Sub(base)
			return s, nil
		}
		time.Sleep(poll)
	}
	return s, fmt.Errorf("customer %s not VERIFIED within 30 s", c.ID)
}

func report(samples []sample, failed, rate int, dur time.Duration) {
	fmt.Printf("sandbox end to end: %d customers at %d/s for %s, %d failed\n", len(samples), rate, dur, failed)
	stage := func(name string, f func(s sample) time.Duration) {
		lat := make([]time.Duration, len(samples))
		for i, s := range samples {
			lat[i] = f(s)
		}
		r := load.Summarise(name, lat, 0, time.Second)
		fmt.Printf("  %-48s p50 %7.1f ms  p99 %7.1f ms  max %7.1f ms\n", name, load.MS(r.P50), load.MS(r.P99), load.MS(r.Max))
	}
	stage("POST answered", func(s sample) time.Duration { return s.created })
	stage("created -> job opened (outbox, Kafka, consumer)", func(s sample) time.Duration { return s.consumed - s.created })
	stage("job opened -> VERIFIED (sandbox)", func(s sample) time.Duration { return s.verified - s.consumed })
	stage("VERIFIED -> seen by the poll", func(s sample) time.Duration { return s.visible - s.verified })
	stage("POST sent -> VERIFIED on status", func(s sample) time.Duration { return s.visible })
}
