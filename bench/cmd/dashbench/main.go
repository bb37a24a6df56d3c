// Command dashbench measures the lenders' dashboard in Debian's chromium:
// the bytes a first visit transfers (cold cache, signed out), and how long
// the customers page takes to show its first rows for an organization
// with 1,000,000 live customers, cold (empty cache) and warm.
//
// The customers come from listbench's kept database (run listbench first:
// `go run ./cmd/listbench -rows 1000000`), whose measured organization is
// org_bench. The platform runs in-process with the customer service on
// that database; a dashboard account is signed up and its organization
// renamed to org_bench in auth-billing's (fresh) database, so that the
// signed-in person is that lender.
//
//	go run ./cmd/dashbench -rounds 5
package main

import (
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/cookiejar"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/e2e/harness"
	"github.com/kycfield/kyc/pkg/pgtest"
)

const benchOrg = "org_bench" // listbench's measured organization

func main() {
	customersDB := flag.String("customers-db", "kyc_bench_list_v4_1000000", "listbench's kept customer database")
	rounds := flag.Int("rounds", 5, "page loads of each kind")
	flag.Parse()
	ctx := context.Background()
	dbURL := strings.Replace(pgtest.AdminURL(), "/postgres?", "/"+*customersDB+"?", 1)
	if err := checkSeeded(ctx, dbURL); err != nil {
		log.Fatalf("%v (run listbench first: go run ./cmd/listbench -rows 1000000)", err)
	}
	p, err := harness.StartWith(ctx, harness.Options{Databases: map[string]string{"customer": dbURL}})
	if err != nil {
		log.Fatal(err)
	}
	defer p.Stop()
	session, err := signUpAsBenchOrg(ctx, p)
	if err != nil {
		log.Print(err)
		return
	}
	if err := measure(ctx, p.GatewayURL, session, *rounds); err != nil {
		log.Print(err)
	}
}

func checkSeeded(ctx context.Context, dbURL string) error {
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	var n int64
	if err := conn.QueryRow(ctx, `SELECT n FROM customer_counts WHERE org_id = $1 AND env = 'live' AND status = 'ALL'`, benchOrg).Scan(&n); err != nil {
		return fmt.Errorf("no seeded customers for %s: %w", benchOrg, err)
	}
	log.Printf("%s has %d live customers", benchOrg, n)
	return nil
}

// signUpAsBenchOrg signs a person up on the dashboard, moves their new
// organization to listbench's id (a bench-only shortcut: auth-billing's
// database is this run's own), puts it on the Growth plan so live data is
// visible, and returns the session cookie's value.
func signUpAsBenchOrg(ctx context.Context, p *harness.Platform) (string, error) {
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	body := `{"organizationName":"Bench Lender","email":"bench@lender.ng","password":"correct horse battery"}`
	resp, err := client.Post(p.GatewayURL+"/dashboard/v1/signup", "application/json", strings.NewReader(body))
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var env struct {
		Data struct {
			Organization struct{ ID string }
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil || resp.StatusCode != http.StatusCreated {
		return "", fmt.Errorf("sign up: %d %v", resp.StatusCode, err)
	}
	var cookie string
	for _, c := range resp.Cookies() {
		if c.Name == "kyc_session" {
			cookie = c.Value
		}
	}
	conn, err := pgx.Connect(ctx, p.DatabaseURLs["auth-billing"])
	if err != nil {
		return "", err
	}
	defer conn.Close(ctx)
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		for _, q := range []string{
			`INSERT INTO organizations (id, name, plan, version, created_at, updated_at)
			 SELECT $2, name, 'growth', version + 1, created_at, updated_at FROM organizations WHERE id = $1`,
			`UPDATE users SET org_id = $2 WHERE org_id = $1`,
			`UPDATE sessions SET org_id = $2 WHERE org_id = $1`,
			`UPDATE plan_periods SET org_id = $2, plan = 'growth' WHERE org_id = $1`,
			`DELETE FROM organizations WHERE id = $1 AND id <> $2`,
		} {
			if _, err := tx.Exec(ctx, q, env.Data.Organization.ID, benchOrg); err != nil {
				return fmt.Errorf("%s: %w", q, err)
			}
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	me, err := client.Get(p.GatewayURL + "/dashboard/v1/me")
	if err != nil {
		return "", err
	}
	defer me.Body.Close()
	if me.StatusCode != http.StatusOK || cookie == "" {
		b, _ := io.ReadAll(me.Body)
		return "", fmt.Errorf("signed in as %s: GET /dashboard/v1/me: %d %s", benchOrg, me.StatusCode, b)
	}
	return cookie, nil
}

// load is one page load as the page itself timed it.
type load struct {
	ms            float64 // navigation start to the first customer row drawn
	assets, calls int64   // bytes transferred: the app's files, its API calls
}

func measure(ctx context.Context, gw, session string, rounds int) error {
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-component-update", true), chromedp.WindowSize(1280, 900))
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		opts = append(opts, chromedp.ExecPath("/usr/bin/chromium"))
	}
	actx, cancelA := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelA()
	bctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	bctx, cancelT := context.WithTimeout(bctx, 10*time.Minute)
	defer cancelT()

	first, err := pageLoad(bctx, gw+"/dashboard/", `document.querySelector("input[type=password]")`, true)
	if err != nil {
		return fmt.Errorf("first visit: %w", err)
	}
	fmt.Printf("first visit, signed out, cold cache: %d bytes transferred (%d app files, %d API), login form after %.0f ms\n",
		first.assets+first.calls, first.assets, first.calls, first.ms)

	err = chromedp.Do(bctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, network.SetCookie, network.SetCookieParams{Name: "kyc_session", Value: session, URL: gw + "/"})
		return err
	}), chromedp.Evaluate[chromedp.Void](`localStorage.setItem("kyc-env", "live")`))
	if err != nil {
		return err
	}
	const firstRow = `document.querySelector("#results tbody tr")`
	for _, c := range []struct {
		name       string
		cold, slow bool
	}{{"cold cache", true, false}, {"warm cache", false, false}, {"cold cache, slow network (Fast 3G: 150 ms, 1.6 Mbit/s down)", true, true}} {
		if err := throttle(bctx, c.slow); err != nil {
			return err
		}
		var got []load
		for range rounds {
			l, err := pageLoad(bctx, gw+"/dashboard/#/customers", firstRow, c.cold)
			if err != nil {
				return err
			}
			got = append(got, l)
		}
		report(c.name, got)
	}
	return throttle(bctx, false)
}

// throttle emulates Lighthouse's "Fast 3G" profile (150 ms round trip,
// 1.6 Mbit/s down, 750 kbit/s up) for every request, or lifts it.
func throttle(ctx context.Context, on bool) error {
	return chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if _, err := cdp.Call(ctx, t, network.Enable, network.EnableParams{}); err != nil {
			return err
		}
		rules := []*network.Conditions{}
		if on {
			rules = append(rules, &network.Conditions{Latency: 150, DownloadThroughput: 1.6e6 / 8, UploadThroughput: 750e3 / 8})
		}
		_, err := cdp.Call(ctx, t, network.EmulateNetworkConditionsByRule, network.EmulateNetworkConditionsByRuleParams{MatchedNetworkConditions: rules})
		return err
	}))
}

// pageLoad opens url after a blank page (emptying the cache first when
// cold) and waits until ready (a JS expression) holds; the page's own
// clock and resource timings give the figures.
func pageLoad(ctx context.Context, url, ready string, cold bool) (load, error) {
	var l load
	err := chromedp.Do(ctx, chromedp.Navigate("about:blank"), chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if !cold {
			return nil
		}
		_, err := cdp.Call(ctx, t, network.ClearBrowserCache, cdp.Empty{})
		return err
	}), chromedp.Navigate(url), chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		wctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		ms, err := chromedp.Poll[float64](`(`+ready+`) ? performance.now() : 0`, chromedp.WithPollingInterval(5*time.Millisecond))(wctx, t)
		for try := 0; err != nil && strings.Contains(err.Error(), "Cannot find context") && try < 3; try++ {
			// The poll began in the blank page's context as it was
			// replaced; poll again in the new one (its clock is the same).
			ms, err = chromedp.Poll[float64](`(`+ready+`) ? performance.now() : 0`, chromedp.WithPollingInterval(5*time.Millisecond))(wctx, t)
		}
		if err != nil {
			screen, _ := chromedp.Evaluate[string](`document.body.innerText`)(ctx, t)
			return fmt.Errorf("%s: %w; the page shows: %q", url, err, screen)
		}
		sizes, err := chromedp.Evaluate[[2]int64](`(() => {
			const all = [...performance.getEntriesByType("navigation"), ...performance.getEntriesByType("resource")];
			const api = (e) => e.initiatorType === "fetch" || e.initiatorType === "xmlhttprequest";
			const sum = (es) => es.reduce((n, e) => n + e.transferSize, 0);
			return [sum(all.filter((e) => !api(e))), sum(all.filter(api))];
		})()`)(ctx, t)
		l = load{ms: ms, assets: sizes[0], calls: sizes[1]}
		return err
	}))
	return l, err
}

func report(name string, got []load) {
	ms := make([]float64, len(got))
	for i, l := range got {
		ms[i] = l.ms
	}
	sorted := slices.Clone(ms)
	slices.SortFunc(sorted, cmp.Compare)
	fmt.Printf("customers page, 1M customers, %s: first rows after median %.0f ms (runs %v); bytes: %d app files, %d API\n",
		name, sorted[len(sorted)/2], roundAll(ms), got[0].assets, got[0].calls)
}

func roundAll(ms []float64) []int {
	out := make([]int, len(ms))
	for i, m := range ms {
		out[i] = int(m + 0.5)
	}
	return out
}
