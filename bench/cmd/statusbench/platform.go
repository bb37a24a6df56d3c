package main

import (
	"context"
	"fmt"
	"log"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/kycfield/kyc/bench/load"
	"github.com/kycfield/kyc/e2e/harness"
)

// platformRun is -platform's settings.
type platformRun struct {
	customers  int
	rate       int
	duration   time.Duration
	rounds     int
	cpuprofile string
}

// viaPlatform measures the status read the way a lender polls it: with a
// sandbox key through the gateway (key check, quota, proxy) to the
// customer service, on the whole platform in this process. It creates
// r.customers sandbox customers, waits until every one is VERIFIED (a
// finished customer carries its verificationData, the largest answer),
// then sends paced status reads on random ones, and prints each round's
// latencies and the CPU each process spent per read (load.SampleCPU:
// "platform" is this process, the gateway, every service and the load
// client; "postgres" only this run's databases). With r.cpuprofile the
// rounds are profiled, labelled by component (go tool pprof -tags), to
// tell the gateway's share from the customer service's.
func viaPlatform(ctx context.Context, r platformRun) {
	p, err := harness.Start(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer p.Stop()
	t := load.TB{}
	_, key := p.NewKey(t, p.NewOrg(t, "enterprise"), "test")
	ids := seed(p, key, r.customers)
	waitVerified(p, key, ids)
	// No render trailing the customers' verification is measured with the reads.
	if _, n := load.WaitReports(p.DatabaseURLs["reporting"], len(ids), 2*time.Minute); n < len(ids) {
		log.Fatalf("%d of %d reports after two minutes", n, len(ids))
	}
	log.Printf("%d sandbox customers VERIFIED, their reports rendered", len(ids))

	client := load.Client(32)
	status := func() *http.Request {
		req, _ := http.NewRequest("GET", p.GatewayURL+"/api/v1/verification/"+ids[rand.IntN(len(ids))]+"/status", nil)
		req.Header.Set("Authorization", "Bearer "+key)
		return req
	}
	if r.cpuprofile != "" {
		stop := load.Profile(r.cpuprofile)
		defer stop()
	}
	dbs := load.DatabaseNames(p.DatabaseURLs)
	var p50s, p99s []float64
	perRead := map[string][]float64{}
	for round := 1; round <= r.rounds; round++ {
		before := load.SampleCPU(dbs...)
		res := load.Paced(ctx, "status", client, r.rate, r.duration, http.StatusOK, status)
		cpu := load.CPUSince(load.SampleCPU(dbs...), before)
		delete(cpu, "other") // the machine is shared; not this run's work
		fmt.Printf("round %d  %s\n  CPU µs per read: %s\n", round, res, load.ByGroup(cpu, 1e6/float64(max(res.Requests, 1)), "%.0f"))
		p50s, p99s = append(p50s, load.MS(res.P50)), append(p99s, load.MS(res.P99))
		for g, s := range cpu {
			perRead[g] = append(perRead[g], s*1e6/float64(max(res.Requests, 1)))
		}
	}
	medians := map[string]float64{}
	total := 0.0
	for g, v := range perRead {
		medians[g] = load.Median(v)
		if g != "postgres-shared" {
			total += medians[g]
		}
	}
	fmt.Printf("\nmedians over %d rounds, %d reads/s for %s each, through the gateway, random of %d VERIFIED customers:\n",
		r.rounds, r.rate, r.duration, len(ids))
	fmt.Printf("  p50 %.2f ms   p99 %.2f ms\n  CPU µs per read: %s (all but postgres-shared: %.0f)\n",
		load.Median(p50s), load.Median(p99s), load.ByGroup(medians, 1, "%.0f"), total)
}

// seed creates n sandbox customers with one address each and returns
// their ids.
func seed(p *harness.Platform, key string, n int) []string {
	t := load.TB{}
	ids := make([]string, 0, n)
	for i := range n {
		r := p.API(t, "POST", "/api/v1/customers", key, map[string]any{"firstName": "Ngozi", "lastName": "Okafor",
			"phone":     fmt.Sprintf("+23481%08d", i),
			"addresses": []map[string]any{{"streetName": "Adeola Odeku Street", "city": "Victoria Island", "state": "Lagos"}}})
		if r.Status != http.StatusCreated {
			log.Fatalf("create: %d %s", r.Status, r.Body)
		}
		var c struct{ ID string }
		r.Decode(t, &c)
		ids = append(ids, c.ID)
	}
	return ids
}

// waitVerified returns once every customer of ids is VERIFIED, or stops
// the run after a minute.
func waitVerified(p *harness.Platform, key string, ids []string) {
	t := load.TB{}
	deadline := time.Now().Add(time.Minute)
	for _, id := range ids {
		for {
			var st struct {
				OverallStatus string `json:"overallStatus"`
			}
			p.API(t, "GET", "/api/v1/verification/"+id+"/status", key, nil).Decode(t, &st)
			if st.OverallStatus == "VERIFIED" {
				break
			}
			if time.Now().After(deadline) {
				log.Fatalf("%s not VERIFIED after a minute", id)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}
