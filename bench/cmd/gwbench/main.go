// Command gwbench measures what the gateway costs: an authenticated,
// quota-counted GET /api/v1/customers/{id} through the gateway, the same
// request sent straight to the customer service, and through a bare
// httputil.ReverseProxy in front of the service, interleaved in rounds in
// one run so that every target sees the same machine load.
//
//	go run ./bench/cmd/gwbench -duration 10s -conns 32 -rounds 3
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"runtime/pprof"
	"sync"
	"time"

	"github.com/kycfield/kyc/bench/load"
	"github.com/kycfield/kyc/e2e/harness"
	"github.com/kycfield/kyc/pkg/config"
	"github.com/kycfield/kyc/pkg/principal"
)

func main() {
	dur := flag.Duration("duration", 10*time.Second, "length of each measurement")
	conns := flag.Int("conns", 32, "requests in flight")
	rounds := flag.Int("rounds", 3, "interleaved rounds")
	rate := flag.Int("rate", 300, "requests per second of the paced latency runs")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the gateway runs to this file")
	flag.Parse()
	ctx := context.Background()
	p, err := harness.Start(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer p.Stop()
	t := load.TB{}
	org := p.NewOrg(t, "enterprise") // no daily cap, but every request is still counted in Redis
	_, key := p.NewKey(t, org, "live")
	r := p.API(t, "POST", "/api/v1/customers", key, map[string]any{"firstName": "Ngozi", "lastName": "Okafor", "phone": "+2348031234567",
		"addresses": []map[string]any{{"streetName": "Adeola Odeku Street", "city": "Lagos", "state": "Lagos"}}})
	if r.Status != http.StatusCreated {
		log.Fatalf("seed customer: %d %s", r.Status, r.Body)
	}
	var c struct{ ID string }
	r.Decode(t, &c)
	path := "/api/v1/customers/" + c.ID

	var common config.Common
	if err := config.Load(&common); err != nil {
		log.Fatal(err)
	}
	signer, _ := principal.NewSigner(common.PrincipalSecrets, common.PrincipalTTL)
	who := principal.Principal{Kind: principal.KindAPIKey, OrgID: org, Env: principal.EnvLive, KeyID: "bench", Scopes: []string{principal.ScopeRead}, Plan: "enterprise"}
	customerURL := p.URLs["customer"]
	bare := bareProxy(customerURL, signer, who)

	targets := []struct {
		name string
		req  load.NewRequest
	}{
		{"direct", func() *http.Request {
			req, _ := http.NewRequest("GET", customerURL+path, nil)
			req.Header.Set(principal.Header, signer.Sign(who, "GET", path))
			return req
		}},
		{"bare-proxy", func() *http.Request { req, _ := http.NewRequest("GET", bare+path, nil); return req }},
		{"gateway", func() *http.Request {
			req, _ := http.NewRequest("GET", p.GatewayURL+path, nil)
			req.Header.Set("Authorization", "Bearer "+key)
			return req
		}},
	}
	client := load.Client(*conns)
	for _, tg := range targets { // warm up connections, caches and JIT-free paths
		load.Run(ctx, tg.name, client, *conns, time.Second, http.StatusOK, tg.req)
	}
	rps := map[string][]float64{}
	p50 := map[string][]float64{}
	p99 := map[string][]float64{}
	lp50 := map[string][]float64{}
	lp99 := map[string][]float64{}
	var prof *os.File
	if *cpuprofile != "" {
		if prof, err = os.Create(*cpuprofile); err != nil {
			log.Fatal(err)
		}
	}
	for i := range *rounds {
		fmt.Printf("round %d\n", i+1)
		for _, tg := range targets {
			lat := load.Paced(ctx, tg.name, client, *rate, *dur/2, http.StatusOK, tg.req)
			fmt.Printf("  paced %d/s: %s\n", *rate, lat)
			lp50[tg.name] = append(lp50[tg.name], load.MS(lat.P50))
			lp99[tg.name] = append(lp99[tg.name], load.MS(lat.P99))
			if prof != nil && tg.name == "gateway" && i == 0 {
				_ = pprof.StartCPUProfile(prof)
			}
			res := load.Run(ctx, tg.name, client, *conns, *dur, http.StatusOK, tg.req)
			if prof != nil && tg.name == "gateway" && i == 0 {
				pprof.StopCPUProfile()
			}
			fmt.Println("  " + res.String())
			if res.Errors > 0 {
				fmt.Fprintf(os.Stderr, "%s: %d errors\n", tg.name, res.Errors)
			}
			rps[tg.name] = append(rps[tg.name], res.RPS)
			p50[tg.name] = append(p50[tg.name], load.MS(res.P50))
			p99[tg.name] = append(p99[tg.name], load.MS(res.P99))
		}
	}
	fmt.Printf("\nmedians over %d rounds: saturation with %d connections for %s; latency paced at %d req/s for %s\n", *rounds, *conns, *dur, *rate, *dur/2)
	fmt.Println("| target | req/s (saturated) | p50 ms (saturated) | p99 ms (saturated) | p50 ms (paced) | p99 ms (paced) |\n|---|---:|---:|---:|---:|---:|")
	for _, tg := range targets {
		n := tg.name
		fmt.Printf("| %s | %.0f | %.2f | %.2f | %.2f | %.2f |\n", n, load.Median(rps[n]), load.Median(p50[n]), load.Median(p99[n]), load.Median(lp50[n]), load.Median(lp99[n]))
	}
	// Rounds are interleaved so that each round's three runs share the
	// machine's mood: the paired (per-round) figures are the fairer ones.
	var ratio, added, bareRatio, bareAdded []float64
	for i := range rps["direct"] {
		ratio = append(ratio, rps["gateway"][i]/rps["direct"][i])
		added = append(added, lp99["gateway"][i]-lp99["direct"][i])
		bareRatio = append(bareRatio, rps["gateway"][i]/rps["bare-proxy"][i])
		bareAdded = append(bareAdded, lp99["gateway"][i]-lp99["bare-proxy"][i])
	}
	fmt.Printf("\npaired, median over rounds: gateway/direct throughput %.0f%%; paced p99 added over direct %.2f ms\n", 100*load.Median(ratio), load.Median(added))
	// Issue 30's measure: against the bare proxy, the hop's own cost.
	fmt.Printf("paired, median over rounds: gateway/bare-proxy throughput %.0f%%; paced p99 added over the bare proxy %.2f ms\n", 100*load.Median(bareRatio), load.Median(bareAdded))
	d, b, g := load.Median(rps["direct"]), load.Median(rps["bare-proxy"]), load.Median(rps["gateway"])
	fmt.Printf("medians per target: gateway/direct throughput: %.0f%%   gateway/bare-proxy: %.0f%%   bare-proxy/direct: %.0f%%\n", 100*g/d, 100*g/b, 100*b/d)
	fmt.Printf("paced p99 added by the gateway over direct: %.2f ms; over the bare proxy: %.2f ms\n",
		load.Median(lp99["gateway"])-load.Median(lp99["direct"]), load.Median(lp99["gateway"])-load.Median(lp99["bare-proxy"]))
}

// bareProxy is the reference: a stock ReverseProxy that only adds the
// principal header the service requires, configured as the gateway's
// proxy is where configuration is not the gateway's own work: the same
// upstream transport settings, a pool of copy buffers, and a server with
// the same timeouts (pkg/server), so that the gateway's figure against it
// is the cost of what the gateway does, not of how either is tuned.
func bareProxy(target string, s *principal.Signer, who principal.Principal) string {
	u, _ := url.Parse(target)
	rp := &httputil.ReverseProxy{
		Transport: &http.Transport{
			DialContext:         (&net.Dialer{Timeout: 3 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			MaxIdleConns:        1024,
			MaxIdleConnsPerHost: 256,
			IdleConnTimeout:     90 * time.Second,
			// The gateway's UPSTREAM_TIMEOUT.
			ResponseHeaderTimeout: 30 * time.Second,
		},
		BufferPool: &buffers{},
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(u)
			pr.Out.Header.Set(principal.Header, s.Sign(who, pr.Out.Method, pr.Out.URL.EscapedPath()))
		},
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{Handler: rp, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 60 * time.Second,
		WriteTimeout: 120 * time.Second, IdleTimeout: 120 * time.Second, MaxHeaderBytes: 64 << 10}
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String()
}

// buffers recycles the proxy's 32 KiB copy buffers, as the gateway's
// proxy does.
type buffers struct{ p sync.Pool }

func (b *buffers) Get() []byte {
	if v, ok := b.p.Get().(*[]byte); ok {
		return *v
	}
	return make([]byte, 32<<10)
}

func (b *buffers) Put(buf []byte) { b.p.Put(&buf) }
