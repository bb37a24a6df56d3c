// Command listbench measures GET /api/v1/customers at scale: it seeds a
// dedicated database (kept between runs and named after the layout;
// seeding takes minutes), runs the real customer service on it, and times
// each kind of list request — first page, status filter, broad and
// narrow searches, phone prefix, a deep page and cursor paging — in
// rounds, reporting p50/p99/max. It then prints the plans PostgreSQL ran
// for the search requests (EXPLAIN ANALYZE, BUFFERS, via auto_explain).
//
// Single tenant: 1,000,000 customers in one organization:
//
//	go run ./cmd/listbench -rows 1000000
//
// Multi-tenant: the same organization in a table shared with 400 others
// holding 4,000,000 more customers (the same names: other lenders have
// their Ngozis too):
//
//	go run ./cmd/listbench -rows 1000000 -tenants 400 -other-rows 4000000
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/bench/load"
	"github.com/kycfield/kyc/pkg/config"
	"github.com/kycfield/kyc/pkg/kafkatest"
	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/pkg/pgtest"
	"github.com/kycfield/kyc/pkg/principal"
	customer "github.com/kycfield/kyc/services/customer/app"
)

// smallOrg is one of the other organizations (about other-rows/tenants
// customers), measured in multi-tenant mode to show a small lender's
// search does not pay for the big one's rows.
const smallOrg = "org_other_000"

// kind is one kind of list request.
type kind struct {
	name, query string
	org         string // benchOrg unless set
}

func main() {
	var l layout
	flag.IntVar(&l.rows, "rows", 1_000_000, "customers in the measured organization")
	flag.IntVar(&l.tenants, "tenants", 0, "other organizations sharing the table (multi-tenant mode; with -other-rows)")
	flag.IntVar(&l.otherRows, "other-rows", 0, "customers spread over the other organizations")
	n := flag.Int("n", 200, "requests per kind and round")
	rounds := flag.Int("rounds", 2, "rounds; each sends every kind n times in turn")
	dbName := flag.String("db", "", "database kept between runs (default: named after the layout)")
	fresh := flag.Bool("fresh", false, "drop the kept database and seed again")
	drop := flag.Bool("drop", false, "drop the database when done")
	explain := flag.Bool("explain", true, "print the plans of the search requests")
	flag.Parse()
	if (l.tenants == 0) != (l.otherRows == 0) || l.rows < 1000 {
		log.Fatal("-tenants and -other-rows go together; -rows is at least 1000")
	}
	if *dbName == "" {
		*dbName = l.dbName()
	}
	ctx := context.Background()
	dbURL, err := prepare(ctx, pgtest.AdminURL(), *dbName, l, *fresh)
	if err != nil {
		log.Fatal(err)
	}
	if *drop {
		defer func() {
			if err := dropDB(ctx, pgtest.AdminURL(), *dbName); err != nil {
				log.Print(err)
			}
		}()
	}
	if err := run(ctx, dbURL, l, *n, *rounds, *explain); err != nil {
		log.Print(err)
	}
}

func run(ctx context.Context, dbURL string, l layout, n, rounds int, explain bool) error {
	bus, err := kafkatest.NewConfig(ctx)
	if err != nil {
		return err
	}
	defer kafkatest.DeleteTopics(bus)
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	var cfg customer.Config
	if err := config.Load(&cfg); err != nil {
		return err
	}
	cfg.KafkaBrokers, cfg.KafkaTopicPrefix, cfg.HTTPAddr = bus.Brokers, bus.TopicPrefix, "127.0.0.1:0"
	base, err := serve(ctx, cfg, dbURL)
	if err != nil {
		return err
	}
	signer, err := principal.NewSigner(cfg.PrincipalSecrets, cfg.PrincipalTTL)
	if err != nil {
		return err
	}
	client := load.Client(4)
	get := func(base, org, q string) (page, error) {
		req, _ := http.NewRequest("GET", base+"/api/v1/customers"+q, nil)
		who := principal.Principal{Kind: principal.KindAPIKey, OrgID: org, Env: principal.EnvLive, KeyID: "bench", Scopes: []string{principal.ScopeRead}}
		req.Header.Set(principal.Header, signer.Sign(who, "GET", "/api/v1/customers"))
		resp, err := client.Do(req)
		if err != nil {
			return page{}, err
		}
		var body struct{ Data page }
		if err := decode(resp, &body); err != nil || resp.StatusCode != http.StatusOK {
			return page{}, fmt.Errorf("GET %s: %d %v", q, resp.StatusCode, err)
		}
		return body.Data, nil
	}
	kinds, err := requestKinds(ctx, dbURL, l, func(q string) (page, error) { return get(base, benchOrg, q) })
	if err != nil {
		return err
	}

	fmt.Printf("GET /api/v1/customers, %s; %d rounds of %d sequential requests per kind\n\n", l, rounds, n)
	lat := make([][]time.Duration, len(kinds))
	p99s := make([][]string, len(kinds))
	totals := make([]string, len(kinds))
	for r := range rounds {
		for i, k := range kinds {
			var round []time.Duration
			for range n {
				t0 := time.Now()
				p, err := get(base, k.org, k.query)
				if err != nil {
					return fmt.Errorf("%s: %w", k.name, err)
				}
				round = append(round, time.Since(t0))
				totals[i] = p.Pagination.total()
			}
			lat[i] = append(lat[i], round...)
			p99s[i] = append(p99s[i], fmt.Sprintf("%.1f", load.MS(load.Summarise("", round, 0, time.Second).P99)))
		}
		log.Printf("round %d/%d done", r+1, rounds)
	}
	fmt.Println("| request | p50 ms | p99 ms | p99 by round | max ms | first ms | total |\n|---|---:|---:|---:|---:|---:|---:|")
	for i, k := range kinds {
		first := lat[i][0]
		s := load.Summarise(k.name, lat[i], 0, time.Second)
		fmt.Printf("| %s `%s` | %.2f | %.2f | %s | %.2f | %.2f | %s |\n", k.name, k.query[:min(len(k.query), 60)],
			load.MS(s.P50), load.MS(s.P99), strings.Join(p99s[i], " / "), load.MS(s.Max), load.MS(first), totals[i])
	}
	if !explain {
		return nil
	}
	// A second instance of the service whose connections report their
	// plans; the timings above never went through the relay.
	tap, tapURL, err := newPlanTap(dbURL)
	if err != nil {
		return err
	}
	defer tap.Close()
	tapBase, err := serve(ctx, cfg, tapURL)
	if err != nil {
		return err
	}
	fmt.Println("\nPlans of the search requests (auto_explain: EXPLAIN ANALYZE, BUFFERS of the service's own statements; second request of each, warm):")
	for _, k := range kinds {
		if !strings.Contains(k.query, "search=") {
			continue
		}
		if _, err := get(tapBase, k.org, k.query); err != nil {
			return err
		}
		tap.collect()
		if _, err := get(tapBase, k.org, k.query); err != nil {
			return err
		}
		fmt.Printf("\n#### %s `%s`\n\n```\n", k.name, k.query)
		for _, p := range tap.take() {
			fmt.Println(strings.TrimSpace(p))
		}
		fmt.Println("```")
	}
	return nil
}

// serve starts the customer service on dbURL and returns its base URL.
func serve(ctx context.Context, cfg customer.Config, dbURL string) (string, error) {
	cfg.DatabaseURL = dbURL
	addr := make(chan string, 1)
	failed := make(chan error, 1)
	go func() { failed <- customer.Run(ctx, cfg, logging.Discard(), func(a string) { addr <- a }) }()
	select {
	case a := <-addr:
		return "http://" + a, nil
	case err := <-failed:
		return "", fmt.Errorf("customer service: %w", err)
	}
}

// page is the part of a list response the benchmark reads.
type page struct {
	Pagination pagination
}

type pagination struct {
	Total      int64
	TotalExact bool
	NextCursor string
}

func (p pagination) total() string {
	if !p.TotalExact {
		return fmt.Sprintf("%d (capped)", p.Total)
	}
	return fmt.Sprint(p.Total)
}

// requestKinds returns the requests measured. Narrow searches look for
// values one real customer of the measured organization has.
func requestKinds(ctx context.Context, dbURL string, l layout, get func(q string) (page, error)) ([]kind, error) {
	c := ""
	for range 200 { // 200 pages of 100: a cursor after 20,000 customers
		p, err := get("?limit=100" + c)
		if err != nil {
			return nil, err
		}
		c = "&cursor=" + p.Pagination.NextCursor
	}
	var email, phone, last string
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return nil, err
	}
	defer conn.Close(ctx)
	err = conn.QueryRow(ctx, `SELECT email, phone, last_name FROM customers WHERE org_id = $1 AND env = 'live' ORDER BY id LIMIT 1 OFFSET $2`,
		benchOrg, int64(l.rows)*424242/1_000_000).Scan(&email, &phone, &last)
	if err != nil {
		return nil, err
	}
	local := email[:strings.IndexByte(email, '@')]
	number := strings.TrimLeft(local, "abcdefghijklmnopqrstuvwxyz.") // the seed puts the row number in every email
	kinds := []kind{
		{"first page", "?limit=20", ""},
		{"status filter", "?status=VERIFIED&limit=20", ""},
		{"status filter, page 50", "?status=REJECTED&limit=20&page=50", ""},
		{"broad search", "?search=" + url.QueryEscape("chiamaka"), ""},
		{"very broad search", "?search=" + url.QueryEscape("gmail"), ""},
		{"full-name search", "?search=" + url.QueryEscape("ngozi okafor"), ""},
		{"one email", "?search=" + url.QueryEscape(email), ""},
		{"email fragment", "?search=" + url.QueryEscape(strings.ToUpper(local[len(local)-10:])), ""},
		{"rare substring", "?search=" + url.QueryEscape(strings.ToLower(last[1:])+number[:min(4, len(number))]), ""},
		{"search + status", "?search=" + url.QueryEscape("emeka") + "&status=PENDING", ""},
		{"phone prefix", "?search=" + url.QueryEscape("0"+phone[4:10]), ""},
		{"full phone", "?search=" + url.QueryEscape("0"+phone[4:]), ""},
		{"page 500 (offset 9,980)", "?limit=20&page=500", ""},
		{"cursor after 20,000", "?limit=20" + c, ""},
	}
	if l.tenants > 0 {
		kinds = append(kinds, kind{"full-name search, small org", "?search=" + url.QueryEscape("ngozi okafor"), smallOrg})
	}
	for i := range kinds {
		if kinds[i].org == "" {
			kinds[i].org = benchOrg
		}
	}
	return kinds, nil
}
