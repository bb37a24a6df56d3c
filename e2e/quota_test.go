package e2e

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kycfield/kyc/e2e/harness"
	gateway "github.com/kycfield/kyc/gateway/app"
)

func TestDailyQuotaIsExactUnderConcurrency(t *testing.T) {
	t.Parallel()
	org := P.NewOrg(t, "developer")
	_, key := P.NewKey(t, org, "test")
	const n = 300
	var wg sync.WaitGroup
	results := make(chan harness.Response, n)
	sem := make(chan struct{}, 50)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			results <- P.Do(t, reqList(P.GatewayURL, key))
		}()
	}
	wg.Wait()
	close(results)
	counts := map[int]int{}
	var limited harness.Response
	for r := range results {
		counts[r.Status]++
		if r.Status == http.StatusTooManyRequests {
			limited = r
		}
		if r.Header.Get("RateLimit-Limit") != "100" || r.Header.Get("X-RateLimit-Limit") != "100" || r.Header.Get("RateLimit-Reset") == "" {
			t.Fatalf("rate-limit headers missing: %v", r.Header)
		}
	}
	if counts[http.StatusOK] != 100 || counts[http.StatusTooManyRequests] != 200 {
		t.Fatalf("statuses: %v", counts)
	}
	now := time.Now().UTC()
	toMidnight := time.Date(now.Year(), now.Month(), now.Day()+1, 0, 0, 0, 0, time.UTC).Sub(now).Seconds()
	retry, _ := strconv.Atoi(limited.Header.Get("Retry-After"))
	if limited.Code() != "QUOTA_EXCEEDED" || float64(retry) < toMidnight-5 || float64(retry) > toMidnight+5 || limited.Header.Get("RateLimit-Remaining") != "0" {
		t.Fatalf("429: Retry-After %d (midnight in %.0fs) %s", retry, toMidnight, limited.Body)
	}
	// Both environments count against the organization's one quota.
	growthOrg := P.NewOrg(t, "growth")
	_, sandbox := P.NewKey(t, growthOrg, "test")
	_, live := P.NewKey(t, growthOrg, "live")
	if r := P.Do(t, reqList(P.GatewayURL, sandbox)); r.Header.Get("RateLimit-Remaining") != "9999" {
		t.Fatalf("sandbox request: remaining %v", r.Header.Get("RateLimit-Remaining"))
	}
	if r := P.Do(t, reqList(P.GatewayURL, live)); r.Header.Get("RateLimit-Remaining") != "9998" {
		t.Fatalf("live request after a sandbox one: remaining %v", r.Header.Get("RateLimit-Remaining"))
	}
}

func TestGrowthAndEnterpriseLimits(t *testing.T) {
	t.Parallel()
	_, growth := P.NewKey(t, P.NewOrg(t, "growth"), "live")
	if r := P.Do(t, reqList(P.GatewayURL, growth)); r.Header.Get("RateLimit-Limit") != "10000" || r.Header.Get("RateLimit-Remaining") != "9999" {
		t.Fatalf("growth headers: %v", r.Header)
	}
	_, ent := P.NewKey(t, P.NewOrg(t, "enterprise"), "live")
	if r := P.Do(t, reqList(P.GatewayURL, ent)); r.Status != http.StatusOK || r.Header.Get("RateLimit-Limit") != "" {
		t.Fatalf("enterprise has no cap: %d %v", r.Status, r.Header)
	}
}

func TestDeveloperRecordLimitUnderConcurrency(t *testing.T) {
	t.Parallel()
	org := P.NewOrg(t, "developer")
	_, key := P.NewKey(t, org, "test")
	var wg sync.WaitGroup
	var mu sync.Mutex
	counts := map[string]int{}
	var ids []string
	for i := range 60 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := P.API(t, "POST", "/api/v1/customers", key, newCustomer(map[string]any{"phone": fmt.Sprintf("+23490%08d", 5000000+i)}))
			mu.Lock()
			defer mu.Unlock()
			counts[fmt.Sprintf("%d %s", r.Status, r.Code())]++
			if r.Status == http.StatusCreated {
				var c customerView
				r.Decode(t, &c)
				ids = append(ids, c.ID)
			}
		}()
	}
	wg.Wait()
	if counts["201 "] != 50 || counts["403 PLAN_LIMIT_EXCEEDED"] != 10 {
		t.Fatalf("outcomes: %v", counts)
	}
	if r := P.API(t, "DELETE", "/api/v1/customers/"+ids[0], key, nil); r.Status != http.StatusOK {
		t.Fatal(r.Status)
	}
	if r := P.API(t, "POST", "/api/v1/customers", key, newCustomer(nil)); r.Status != http.StatusCreated {
		t.Fatalf("freed slot: %d %s", r.Status, r.Body)
	}
	if r := P.API(t, "POST", "/api/v1/customers", key, newCustomer(nil)); r.Status != http.StatusForbidden || r.Code() != "PLAN_LIMIT_EXCEEDED" {
		t.Fatalf("51st: %d %s", r.Status, r.Body)
	}
}

// With Redis unreachable the gateway still authenticates (through
// auth-billing) and counts locally: reads and writes are served, the
// daily limit still holds, never a 500; only idempotent requests, which
// need their store, are refused with 503.
func TestGatewayServesWhenRedisIsDown(t *testing.T) {
	t.Parallel()
	adminAddr := freeAddr(t)
	gw, stop, err := P.StartGateway(context.Background(), func(c *gateway.Config) {
		c.RedisURL = "redis://" + freeAddr(t) + "/0" // nothing listens there
		c.AdminAddr = adminAddr
	})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	_, key := P.NewKey(t, P.NewOrg(t, "developer"), "test")
	// A write first, on a fresh quota: it must be served, not merely "not
	// a 500".
	created := P.Do(t, harness.Request{Method: "POST", URL: gw + "/api/v1/customers", Key: key, Body: newCustomer(nil)})
	if created.Status != http.StatusCreated {
		t.Fatalf("write with Redis down: %d %s", created.Status, created.Body)
	}
	var c customerView
	created.Decode(t, &c)
	if r := P.Do(t, harness.Request{Method: "GET", URL: gw + "/api/v1/customers/" + c.ID, Key: key}); r.Status != http.StatusOK {
		t.Fatalf("reading the write back with Redis down: %d %s", r.Status, r.Body)
	}
	ok, limited := 2, 0
	for range 103 {
		switch r := P.Do(t, reqList(gw, key)); r.Status {
		case http.StatusOK:
			ok++
		case http.StatusTooManyRequests:
			limited++
		default:
			t.Fatalf("with Redis down: %d %s", r.Status, r.Body)
		}
	}
	if ok != 100 || limited != 5 {
		t.Fatalf("local fallback counted %d ok, %d limited", ok, limited)
	}
	resp, err := http.Get("http://" + adminAddr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(body), "kyc_gateway_quota_fallback_total") {
		t.Fatalf("fallback metric missing")
	}
	idem := P.Do(t, harness.Request{Method: "POST", URL: gw + "/api/v1/customers", Key: sandbox(t), Body: newCustomer(nil), Header: map[string]string{"Idempotency-Key": "k1"}})
	if idem.Status != http.StatusServiceUnavailable || idem.Code() != "SERVICE_UNAVAILABLE" || idem.Header.Get("Retry-After") == "" {
		t.Fatalf("idempotent request without its store: %d %s", idem.Status, idem.Body)
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}
