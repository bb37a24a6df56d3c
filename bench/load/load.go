// Package load drives HTTP load and summarises latencies; the bench
// commands use it to compare targets measured side by side in one run.
package load

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"time"
)

// Result summarises one run.
type Result struct {
	Name          string
	Requests      int
	Errors        int
	RPS           float64
	P50, P99, Max time.Duration
}

func (r Result) String() string {
	return fmt.Sprintf("%-10s %8.0f req/s  p50 %7.2f ms  p99 %7.2f ms  max %7.2f ms  (%d requests, %d errors)",
		r.Name, r.RPS, MS(r.P50), MS(r.P99), MS(r.Max), r.Requests, r.Errors)
}

// MS is d in milliseconds, as the tables print them.
func MS(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// NewRequest builds the request of one call.
type NewRequest func() *http.Request

// Run keeps conns requests in flight for d and reports throughput and
// latency. A response whose status is not want counts as an error.
func Run(ctx context.Context, name string, client *http.Client, conns int, d time.Duration, want int, next NewRequest) Result {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var mu sync.Mutex
	var lat []time.Duration
	errs := 0
	var wg sync.WaitGroup
	start := time.Now()
	for range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			local := make([]time.Duration, 0, 4096)
			bad := 0
			for ctx.Err() == nil {
				took, ok, sent := do(client, next().WithContext(ctx), want)
				if sent {
					local = append(local, took)
				}
				if !ok && ctx.Err() == nil {
					bad++
				}
			}
			mu.Lock()
			lat = append(lat, local...)
			errs += bad
			mu.Unlock()
		}()
	}
	wg.Wait()
	return Summarise(name, lat, errs, time.Since(start))
}

// Summarise computes a Result from latencies.
func Summarise(name string, lat []time.Duration, errs int, elapsed time.Duration) Result {
	slices.Sort(lat)
	r := Result{Name: name, Requests: len(lat), Errors: errs, RPS: float64(len(lat)) / elapsed.Seconds()}
	if len(lat) > 0 {
		r.P50, r.P99, r.Max = lat[len(lat)/2], lat[min(len(lat)-1, len(lat)*99/100)], lat[len(lat)-1]
	}
	return r
}

// Client returns an HTTP client that keeps conns connections open.
func Client(conns int) *http.Client {
	return &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConns: conns * 2, MaxIdleConnsPerHost: conns * 2, IdleConnTimeout: time.Minute}}
}

// Median returns the median of values.
func Median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

// Paced sends requests at a fixed rate for d (an open loop: a slow
// response does not delay the next request), so latencies are measured
// below saturation rather than dominated by queueing.
func Paced(ctx context.Context, name string, client *http.Client, rate int, d time.Duration, want int, next NewRequest) Result {
	var mu sync.Mutex
	var lat []time.Duration
	errs := 0
	var wg sync.WaitGroup
	tick := time.NewTicker(time.Second / time.Duration(rate))
	defer tick.Stop()
	start := time.Now()
	for time.Since(start) < d {
		<-tick.C
		wg.Add(1)
		go func() {
			defer wg.Done()
			took, ok, sent := do(client, next().WithContext(ctx), want)
			mu.Lock()
			defer mu.Unlock()
			if sent {
				lat = append(lat, took)
			}
			if !ok {
				errs++
			}
		}()
	}
	wg.Wait()
	return Summarise(name, lat, errs, time.Since(start))
}

// do sends req and reads the whole answer. took is the time to the last
// byte; sent is false when no response came back; ok is false for a
// failure or a status other than want.
func do(client *http.Client, req *http.Request, want int) (took time.Duration, ok, sent bool) {
	t0 := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return 0, false, false
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return time.Since(t0), resp.StatusCode == want, true
}
