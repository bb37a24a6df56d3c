// Command scalebench measures sandbox throughput with one and with two
// replicas of every service, side by side in one run: each round starts
// the platform in-process once per replica count (fresh stores each
// time), creates a burst of sandbox customers from concurrent clients
// through the gateway, and times the burst from the first POST until the
// verification stats count every one VERIFIED. It also records the CPU
// each process on the machine spent (this one, which runs every service
// and the gateway; PostgreSQL; the Kafka broker; Redis; MinIO), so the
// bottleneck can be named, and with -cpuprofile writes a profile of this
// process whose samples carry a "component" label (go tool pprof -tags).
//
//	go run ./cmd/scalebench -customers 300 -rounds 3
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"runtime/pprof"
	"strings"
	"sync"
	"time"

	"github.com/kycfield/kyc/bench/load"
	"github.com/kycfield/kyc/e2e/harness"
	"github.com/kycfield/kyc/stack"
)

// result is one burst on one platform.
type result struct {
	replicas int
	created  time.Duration // last POST answered
	verified time.Duration // every customer VERIFIED on the stats
	failed   int
	stages   []time.Duration    // when every customer had passed each stage
	cpu      map[string]float64 // process group -> CPU seconds during the burst
}

func main() {
	customers := flag.Int("customers", 300, "sandbox customers per burst")
	clients := flag.Int("clients", 16, "concurrent clients creating them")
	rounds := flag.Int("rounds", 3, "rounds; each runs every replica count once")
	counts := flag.String("replicas", "1,2", "replica counts to compare, comma-separated")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the bursts (labelled by component) here")
	flag.Parse()
	var reps []int
	for _, f := range strings.Split(*counts, ",") {
		var n int
		if _, err := fmt.Sscan(f, &n); err != nil || n < 1 {
			log.Fatalf("-replicas: %q", f)
		}
		reps = append(reps, n)
	}
	var prof *os.File
	if *cpuprofile != "" {
		var err error
		if prof, err = os.Create(*cpuprofile); err != nil {
			log.Fatal(err)
		}
		defer prof.Close()
	}
	var all []result
	for round := range *rounds {
		for _, n := range reps {
			r := burst(n, *customers, *clients, prof != nil && round == *rounds-1 && n == reps[len(reps)-1], prof)
			fmt.Printf("round %d, %d replica(s): %d customers created in %.2f s, all VERIFIED in %.2f s (%.1f/s), %d failed; CPU s: %s\n",
				round+1, n, *customers, r.created.Seconds(), r.verified.Seconds(), float64(*customers)/r.verified.Seconds(), r.failed, cpuLine(r.cpu))
			for i, s := range stages {
				fmt.Printf("    %-45s all done at %6.2f s\n", s.name, r.stages[i].Seconds())
			}
			all = append(all, r)
		}
	}
	summary(all, reps, *customers)
}

// burst starts the platform with n replicas of every service and times
// one burst of customers through it.
func burst(n, customers, clients int, profile bool, prof *os.File) result {
	ctx := context.Background()
	reps := map[string]int{}
	for _, s := range stack.Services {
		reps[s.Name] = n
	}
	p, err := harness.StartWith(ctx, harness.Options{Replicas: reps, BalanceAll: true})
	if err != nil {
		log.Fatal(err)
	}
	defer p.Stop()
	t := load.TB{}
	_, key := p.NewKey(t, p.NewOrg(t, "enterprise"), "test")
	// Warm up: connections, consumer groups joined and partitions assigned.
	for i := range 10 {
		create(p, key, -1-i)
	}
	waitVerified(p, key, 10, time.Minute)
	settled, err := waitGroupsStable(p, n, time.Minute)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("%d replica(s): consumer groups stable %s after the warm-up", n, settled.Round(time.Millisecond))
	time.Sleep(2 * time.Second)

	res := result{replicas: n}
	dbs := load.DatabaseNames(p.DatabaseURLs)
	before := load.SampleCPU(dbs...)
	if profile {
		if err := pprof.StartCPUProfile(prof); err != nil {
			log.Fatal(err)
		}
	}
	start := time.Now()
	stop := make(chan struct{})
	timer := time.AfterFunc(5*time.Minute, func() { close(stop) })
	defer timer.Stop()
	stagesDone := watch(p, 10+customers, start, stop)
	jobs := make(chan int)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			for i := range jobs {
				if !create(p, key, i) {
					mu.Lock()
					res.failed++
					mu.Unlock()
				}
			}
		})
	}
	for i := range customers {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	res.created = time.Since(start)
	waitVerified(p, key, 10+customers-res.failed, 5*time.Minute)
	res.verified = time.Since(start)
	res.stages = stagesDone()
	if profile {
		pprof.StopCPUProfile()
	}
	res.cpu = load.CPUSince(load.SampleCPU(dbs...), before)
	return res
}

func create(p *harness.Platform, key string, i int) bool {
	r := p.API(load.TB{}, "POST", "/api/v1/customers", key, map[string]any{"firstName": "Ngozi", "lastName": "Okafor",
		"phone":     fmt.Sprintf("+23482%08d", i+1000),
		"addresses": []map[string]any{{"streetName": "Adeola Odeku Street", "city": "Victoria Island", "state": "Lagos"}}})
	if r.Status != http.StatusCreated {
		log.Printf("create: %d %s", r.Status, r.Body)
		return false
	}
	return true
}

// waitVerified polls the stats (one cheap call) until want customers are
// VERIFIED.
func waitVerified(p *harness.Platform, key string, want int, limit time.Duration) {
	deadline := time.Now().Add(limit)
	for {
		var s struct{ Verified int }
		if r := p.API(load.TB{}, "GET", "/api/v1/verification/stats", key, nil); r.Status == http.StatusOK {
			r.Decode(load.TB{}, &s)
		}
		if s.Verified >= want {
			return
		}
		if time.Now().After(deadline) {
			log.Fatalf("%d of %d VERIFIED after %s", s.Verified, want, limit)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func summary(all []result, reps []int, customers int) {
	fmt.Printf("\nmedians over %d rounds, %d customers a burst:\n", len(all)/len(reps), customers)
	fmt.Printf("%-10s %14s %16s %14s  %s\n", "replicas", "POST/s", "VERIFIED/s", "burst s", "CPU s during the burst (median)")
	for _, n := range reps {
		var posts, rates, secs []float64
		cpu := map[string][]float64{}
		for _, r := range all {
			if r.replicas != n {
				continue
			}
			posts = append(posts, float64(customers)/r.created.Seconds())
			rates = append(rates, float64(customers)/r.verified.Seconds())
			secs = append(secs, r.verified.Seconds())
			for k, v := range r.cpu {
				cpu[k] = append(cpu[k], v)
			}
		}
		med := map[string]float64{}
		for k, v := range cpu {
			med[k] = load.Median(v)
		}
		fmt.Printf("%-10d %14.1f %16.1f %14.2f  %s\n", n, load.Median(posts), load.Median(rates), load.Median(secs), cpuLine(med))
	}
	fmt.Printf("\nmedian time by which every customer had passed each stage (s from the first POST):\n%-45s", "stage")
	for _, n := range reps {
		fmt.Printf(" %9d rep.", n)
	}
	fmt.Println()
	for i, s := range stages {
		fmt.Printf("%-45s", s.name)
		for _, n := range reps {
			var v []float64
			for _, r := range all {
				if r.replicas == n {
					v = append(v, r.stages[i].Seconds())
				}
			}
			fmt.Printf(" %14.2f", load.Median(v))
		}
		fmt.Println()
	}
}

func cpuLine(cpu map[string]float64) string { return load.ByGroup(cpu, 1, "%.1f") }
