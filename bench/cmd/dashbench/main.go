// Command dashbench measures the dashboard's customers page with
// 1,000,000 customers in the organization, in headless chromium against
// the whole platform (the e2e harness): the customer service runs on a
// copy of listbench's kept database (`go run ./cmd/listbench` seeds it
// once), and a dashboard account is given the seeded organization.
//
//	go run ./cmd/dashbench -rounds 5
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net/http"
	"net/http/cookiejar"
	"os"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/bench/load"
	"github.com/kycfield/kyc/e2e/harness"
	"github.com/kycfield/kyc/pkg/pgtest"
)

// seededOrg is the organization listbench fills (live environment).
const seededOrg = "org_bench"

func main() {
	rounds := flag.Int("rounds", 5, "measurements of each kind")
	from := flag.String("from", "kyc_bench_list_v4_1000000", "listbench's kept database, copied for the run")
	flag.Parse()
	if err := run(context.Background(), *from, *rounds); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, from string, rounds int) error {
	admin := pgtest.AdminURL()
	name := fmt.Sprintf("kyc_dashbench_%d", os.Getpid())
	start := time.Now()
	if err := exec(ctx, admin, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()+" TEMPLATE "+pgx.Identifier{from}.Sanitize()); err != nil {
		return fmt.Errorf("copy %s (seed it with go run ./cmd/listbench): %w", from, err)
	}
	defer func() {
		_ = exec(context.Background(), admin, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
	}()
	log.Printf("copied %s in %s", from, time.Since(start).Round(time.Millisecond))
	p, err := harness.StartWith(ctx, harness.Options{Databases: map[string]string{"customer": strings.Replace(admin, "/postgres?", "/"+name+"?", 1)}})
	if err != nil {
		return err
	}
	defer p.Stop()
	email, err := account(p)
	if err != nil {
		return err
	}
	page, stop, err := browser(p.GatewayURL, email)
	if err != nil {
		return err
	}
	defer stop()
	return measure(page, p.GatewayURL, rounds)
}

func exec(ctx context.Context, url, sql string, args ...any) error {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql, args...)
	return err
}

const password = "correct horse battery"

// account signs up, moves to Growth (live access) and then renames the
// new organization to the seeded one in auth-billing's database: every
// org_id column and the organization's id, foreign keys unchecked for
// the rename. Sessions opened afterwards belong to the seeded organization.
func account(p *harness.Platform) (string, error) {
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	t := load.TB{}
	email := fmt.Sprintf("bench%d@lender.ng", time.Now().UnixNano())
	r := p.Do(t, harness.Request{Client: c, Method: "POST", URL: p.GatewayURL + "/dashboard/v1/signup",
		Body: map[string]any{"organizationName": "Bench Lender", "email": email, "password": password}})
	if r.Status != http.StatusCreated {
		return "", fmt.Errorf("sign up: %d %s", r.Status, r.Body)
	}
	var s struct {
		CSRFToken    string `json:"csrfToken"`
		Organization struct{ ID string }
	}
	r.Decode(t, &s)
	if r := p.Do(t, harness.Request{Client: c, Method: "PUT", URL: p.GatewayURL + "/dashboard/v1/plan", Body: map[string]any{"plan": "growth"},
		Header: map[string]string{"X-CSRF-Token": s.CSRFToken}}); r.Status != http.StatusOK {
		return "", fmt.Errorf("plan: %d %s", r.Status, r.Body)
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, p.DatabaseURLs["auth-billing"])
	if err != nil {
		return "", err
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT table_name FROM information_schema.columns WHERE table_schema = 'public' AND column_name = 'org_id'`)
	if err != nil {
		return "", err
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return "", err
	}
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SET LOCAL session_replication_role = replica`); err != nil {
			return err
		}
		for _, tb := range append(tables, "organizations") {
			col := "org_id"
			if tb == "organizations" {
				col = "id"
			}
			if _, err := tx.Exec(ctx, fmt.Sprintf("UPDATE %s SET %s = $2 WHERE %s = $1", pgx.Identifier{tb}.Sanitize(), col, col), s.Organization.ID, seededOrg); err != nil {
				return err
			}
		}
		return nil
	})
	return email, err
}

// browser logs in through the page and chooses Live.
func browser(gateway, email string) (context.Context, func(), error) {
	dir, err := os.MkdirTemp("", "dashbench")
	if err != nil {
		return nil, nil, err
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath("/usr/bin/chromium"), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-component-update", true), chromedp.UserDataDir(dir), chromedp.WindowSize(1280, 900))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	stop := func() { cancel(); cancelA(); _ = os.RemoveAll(dir) }
	if err := chromedp.Do(ctx, chromedp.Navigate(gateway+"/dashboard/#/login"), chromedp.WaitVisible(chromedp.ID("log-in")),
		chromedp.SendKeys(chromedp.ID("email"), email), chromedp.SendKeys(chromedp.ID("password"), password), chromedp.Click(chromedp.ID("log-in")),
		chromedp.WaitVisible(chromedp.ID("create-key")), chromedp.Click(chromedp.CSS(`input[name=env][value=live]`)),
		chromedp.WaitVisible(chromedp.ID("create-key"))); err != nil {
		stop()
		return nil, nil, err
	}
	return ctx, stop, nil
}

// untilJS waits (in the page) until the results heading is a new
// element (each answer redraws the results) with a list under it, and
// answers the milliseconds since t0.
const untilJS = `(before, t0) => new Promise((done) => {
	const check = () => {
		const h = document.querySelector("#results h2");
		if (h && h !== before && / of /.test(h.innerText) && document.querySelector("#results tbody tr")) done(performance.now() - t0);
		else setTimeout(check, 2);
	};
	check();
})`

// kind is one measurement: a full page load (act empty), after cold
// (the browser cache emptied) and over a slow network when asked, or an
// action in the loaded page.
type kind struct {
	name       string
	cold, slow bool
	act        string
}

func measure(ctx context.Context, gateway string, rounds int) error {
	kinds := []kind{
		{name: "full load of /dashboard/#/customers, warm cache (navigation start to the first page drawn)"},
		{name: "full load, cold cache", cold: true},
		{name: "full load, cold cache, Fast 3G (150 ms, 1.6 Mbit/s down)", cold: true, slow: true},
		{name: `search "chiamaka"`, act: `document.getElementById("search").value = "chiamaka"; document.getElementById("status").value = ""; document.getElementById("search-go").click()`},
		{name: "status VERIFIED", act: `document.getElementById("search").value = ""; document.getElementById("status").value = "VERIFIED"; document.getElementById("search-go").click()`},
		{name: "next page (cursor)", act: `document.getElementById("next-page").click()`},
	}
	for _, k := range kinds {
		if err := throttle(ctx, k.slow); err != nil {
			return err
		}
		var ms []float64
		var bytes [2]int64
		for range rounds {
			took, b, err := once(ctx, gateway, k)
			if err != nil {
				screen, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`))
				return fmt.Errorf("%s: %w\nscreen: %s", k.name, err, screen)
			}
			ms, bytes = append(ms, took), b
		}
		heading, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("#results h2").innerText`))
		fmt.Printf("%-80s median %6.1f ms  all %v  (%s)", k.name, load.Median(ms), rounded(ms), heading)
		if k.act == "" {
			fmt.Printf("  transferred: %d B app files, %d B API", bytes[0], bytes[1])
		}
		fmt.Println()
	}
	return throttle(ctx, false)
}

// once runs k one time and answers its milliseconds and, for a full load,
// the bytes the browser transferred for the app's files and for its API
// calls (transferSize: bodies as sent, gzip included, plus headers).
func once(ctx context.Context, gateway string, k kind) (float64, [2]int64, error) {
	tctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var bytes [2]int64
	if k.act != "" {
		took, err := chromedp.Run(tctx, chromedp.Evaluate[float64](`(() => {
			const before = document.querySelector("#results h2");
			const t0 = performance.now();
			`+k.act+`;
			return (`+untilJS+`)(before, t0);
		})()`, chromedp.EvalAwaitPromise))
		return took, bytes, err
	}
	err := chromedp.Do(tctx, chromedp.Navigate("about:blank"), chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if !k.cold {
			return nil
		}
		_, err := cdp.Call(ctx, t, network.ClearBrowserCache, cdp.Empty{})
		return err
	}), chromedp.Navigate(gateway+"/dashboard/#/customers"))
	if err != nil {
		return 0, bytes, err
	}
	// The page marks when it has drawn the list.
	drawn := chromedp.PollFunction[float64](`() => performance.getEntriesByName("kyc:customers-drawn")[0]?.startTime || 0`,
		chromedp.WithPollingTimeout(time.Minute))
	took, err := chromedp.Run(tctx, drawn)
	for try := 0; err != nil && strings.Contains(err.Error(), "Cannot find context") && try < 3; try++ {
		// The poll began in the blank page's context as it was replaced;
		// poll again in the new one (the mark is on the new page's clock).
		took, err = chromedp.Run(tctx, drawn)
	}
	if err != nil {
		return 0, bytes, err
	}
	bytes, err = chromedp.Run(tctx, chromedp.Evaluate[[2]int64](`(() => {
		const all = [...performance.getEntriesByType("navigation"), ...performance.getEntriesByType("resource")];
		const api = (e) => e.initiatorType === "fetch" || e.initiatorType === "xmlhttprequest";
		const sum = (es) => es.reduce((n, e) => n + e.transferSize, 0);
		return [sum(all.filter((e) => !api(e))), sum(all.filter(api))];
	})()`))
	return took, bytes, err
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

func rounded(v []float64) []string {
	out := make([]string, len(v))
	for i, x := range v {
		out[i] = fmt.Sprintf("%.0f", x)
	}
	return out
}
