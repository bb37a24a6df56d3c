// Command listbench measures GET /api/v1/customers at scale: it seeds one
// organization with N customers (default 1,000,000) in a dedicated
// database (kept between runs; seeding takes minutes), runs the real
// customer service on it, and times each kind of list request — first
// page, status filter, broad and narrow searches, phone prefix, a deep
// page and cursor paging — reporting p50/p99/max.
//
//	go run ./bench/cmd/listbench -rows 1000000 -n 300
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/bench/load"
	"github.com/kycfield/kyc/pkg/config"
	"github.com/kycfield/kyc/pkg/ids"
	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/pkg/kafkatest"
	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/pkg/outbox"
	"github.com/kycfield/kyc/pkg/pgdb"
	"github.com/kycfield/kyc/pkg/pgtest"
	"github.com/kycfield/kyc/pkg/principal"
	customer "github.com/kycfield/kyc/services/customer/app"
	"github.com/kycfield/kyc/services/customer/migrations"
)

const org = "org_bench"

var (
	firstNames = []string{"Chiamaka", "Emeka", "Ngozi", "Tunde", "Aisha", "Bola", "Chinedu", "Fatima", "Ibrahim", "Kemi",
		"Musa", "Nneka", "Olumide", "Sade", "Uche", "Yusuf", "Zainab", "Obinna", "Halima", "Segun"}
	lastNames = []string{"Okafor", "Adeyemi", "Bello", "Eze", "Ibrahim", "Nwosu", "Ogunleye", "Okeke", "Olawale", "Suleiman",
		"Abubakar", "Balogun", "Chukwu", "Danjuma", "Ekwueme", "Fashola", "Garba", "Ihejirika", "Johnson", "Kalu"}
	domains  = []string{"gmail.com", "gmail.com", "gmail.com", "yahoo.com", "yahoo.com", "outlook.com", "lender.ng"}
	statuses = []string{"PENDING", "PENDING", "PENDING", "IN_PROGRESS", "IN_PROGRESS", "VERIFIED", "VERIFIED", "VERIFIED", "REJECTED"}
)

func main() {
	rows := flag.Int("rows", 1_000_000, "customers in the organization")
	n := flag.Int("n", 300, "requests per query kind")
	dbName := flag.String("db", "kyc_bench_customers_v3", "database kept between runs")
	flag.Parse()
	ctx := context.Background()
	dbURL := strings.Replace(pgtest.AdminURL(), "/postgres?", "/"+*dbName+"?", 1)
	admin, err := pgx.Connect(ctx, pgtest.AdminURL())
	if err != nil {
		log.Fatal(err)
	}
	_, _ = admin.Exec(ctx, "CREATE DATABASE "+*dbName)
	admin.Close(ctx)
	if err := pgdb.Migrate(ctx, dbURL, migrations.Set(), outbox.Migration(), inbox.Migration()); err != nil {
		log.Fatal(err)
	}
	if err := seed(ctx, dbURL, *rows); err != nil {
		log.Fatal(err)
	}

	var cfg customer.Config
	if err := config.Load(&cfg); err != nil {
		log.Fatal(err)
	}
	bus, err := kafkatest.NewConfig(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer kafkatest.DeleteTopics(bus)
	cfg.KafkaBrokers, cfg.KafkaTopicPrefix, cfg.HTTPAddr, cfg.DatabaseURL = bus.Brokers, bus.TopicPrefix, "127.0.0.1:0", dbURL
	addr := make(chan string, 1)
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		if err := customer.Run(sctx, cfg, logging.Discard(), func(a string) { addr <- a }); err != nil {
			log.Fatal(err)
		}
	}()
	base := "http://" + <-addr
	signer, _ := principal.NewSigner(cfg.PrincipalSecrets, cfg.PrincipalTTL)
	who := principal.Principal{Kind: principal.KindAPIKey, OrgID: org, Env: principal.EnvLive, KeyID: "bench", Scopes: []string{principal.ScopeRead}}
	client := load.Client(4)
	get := func(q string) (*http.Response, error) {
		req, _ := http.NewRequest("GET", base+"/api/v1/customers"+q, nil)
		req.Header.Set(principal.Header, signer.Sign(who, "GET", "/api/v1/customers"))
		return client.Do(req)
	}
	first, _ := get("?limit=20")
	first.Body.Close()
	cursorFor := func(page int) string {
		q := "?limit=100"
		c := ""
		for range page {
			resp, err := get(q + c)
			if err != nil {
				log.Fatal(err)
			}
			var body struct {
				Data struct {
					Pagination struct{ NextCursor string }
				}
			}
			_ = decode(resp, &body)
			c = "&cursor=" + body.Data.Pagination.NextCursor
		}
		return c
	}
	deep := cursorFor(200) // after 20,000 customers
	// Narrow searches look for values one real customer has.
	var email, phone, last string
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		log.Fatal(err)
	}
	err = conn.QueryRow(ctx, `SELECT email, phone, last_name FROM customers WHERE org_id = $1 ORDER BY id LIMIT 1 OFFSET 424242`, org).Scan(&email, &phone, &last)
	conn.Close(ctx)
	if err != nil {
		log.Fatal(err)
	}
	local := email[:strings.IndexByte(email, '@')]
	kinds := []struct{ name, query string }{
		{"first page", "?limit=20"},
		{"status filter", "?status=VERIFIED&limit=20"},
		{"status filter, page 50", "?status=REJECTED&limit=20&page=50"},
		{"broad search", "?search=" + url.QueryEscape("chiamaka")},
		{"full-name search", "?search=" + url.QueryEscape("ngozi okafor")},
		{"one email", "?search=" + url.QueryEscape(email)},
		{"email fragment", "?search=" + url.QueryEscape(strings.ToUpper(local[len(local)-10:]))},
		{"rare substring", "?search=" + url.QueryEscape(strings.ToLower(last[1:])+"9999")},
		{"search + status", "?search=" + url.QueryEscape("emeka") + "&status=PENDING"},
		{"phone prefix", "?search=" + url.QueryEscape("0"+phone[4:10])},
		{"full phone", "?search=" + url.QueryEscape("0"+phone[4:])},
		{"page 500 (offset 9,980)", "?limit=20&page=500"},
		{"cursor after 20,000", "?limit=20" + deep},
	}
	fmt.Printf("GET /api/v1/customers on %d customers in one organization, %d sequential requests per kind\n\n", *rows, *n)
	fmt.Println("| request | p50 ms | p99 ms | max ms | total |\n|---|---:|---:|---:|---:|")
	for _, k := range kinds {
		var lat []time.Duration
		var total string
		for range *n {
			t0 := time.Now()
			resp, err := get(k.query)
			if err != nil || resp.StatusCode != http.StatusOK {
				log.Fatalf("%s: %v %v", k.name, err, resp)
			}
			var body struct {
				Data struct {
					Pagination struct {
						Total      int64
						TotalExact bool
					}
				}
			}
			_ = decode(resp, &body)
			lat = append(lat, time.Since(t0))
			total = fmt.Sprint(body.Data.Pagination.Total)
			if !body.Data.Pagination.TotalExact {
				total += " (capped)"
			}
		}
		r := load.Summarise(k.name, lat, 0, time.Second)
		fmt.Printf("| %s `%s` | %.2f | %.2f | %.2f | %s |\n", k.name, k.query[:min(len(k.query), 60)], load.MS(r.P50), load.MS(r.P99), load.MS(r.Max), total)
	}
}

// seed fills the organization up to rows customers with COPY.
func seed(ctx context.Context, dbURL string, rows int) error {
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	var have int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM customers WHERE org_id = $1`, org).Scan(&have); err != nil {
		return err
	}
	if have >= rows {
		return nil
	}
	log.Printf("seeding %d customers (first run only; this takes a few minutes)", rows-have)
	start := time.Now()
	base := time.Now().Add(-time.Duration(rows) * time.Minute)
	const batch = 50_000
	for done := have; done < rows; done += batch {
		end := min(done+batch, rows)
		var cust, addr [][]any
		for i := done; i < end; i++ {
			id := ids.New("cus")
			fn, ln := firstNames[rand.IntN(len(firstNames))], lastNames[rand.IntN(len(lastNames))]
			// A bijection of i: unique numbers that, as in real life, say
			// nothing about when the customer was created.
			phone := fmt.Sprintf("+23480%08d", (uint64(i)*7919*104729)%100_000_000)
			email := fmt.Sprintf("%s.%s%d@%s", strings.ToLower(fn), strings.ToLower(ln), i, domains[rand.IntN(len(domains))])
			at := base.Add(time.Duration(i) * time.Minute)
			status := statuses[rand.IntN(len(statuses))]
			search := strings.ToLower(fn + " " + ln + " " + email + " " + phone)
			cust = append(cust, []any{id, org, "live", fn, ln, phone, email, status, at, at, at, search})
			addr = append(addr, []any{ids.New("adr"), id, 0, "Adeola Odeku Street", "Lagos", "Lagos", "Nigeria", "PENDING", at, at})
		}
		if _, err := conn.CopyFrom(ctx, pgx.Identifier{"customers"}, []string{"id", "org_id", "env", "first_name", "last_name", "phone",
			"email", "status", "submitted_at", "created_at", "updated_at", "search_text"}, pgx.CopyFromRows(cust)); err != nil {
			return err
		}
		if _, err := conn.CopyFrom(ctx, pgx.Identifier{"addresses"}, []string{"id", "customer_id", "position", "street_name", "city",
			"state", "country", "status", "created_at", "updated_at"}, pgx.CopyFromRows(addr)); err != nil {
			return err
		}
		log.Printf("  %d/%d (%s)", end, rows, time.Since(start).Round(time.Second))
	}
	for _, q := range []string{
		`DELETE FROM customer_counts WHERE org_id = '` + org + `'`,
		`INSERT INTO customer_counts (org_id, env, status, n)
		 SELECT org_id, env, status, count(*) FROM customers WHERE org_id = '` + org + `' AND deleted_at IS NULL GROUP BY 1, 2, 3
		 UNION ALL SELECT org_id, env, 'ALL', count(*) FROM customers WHERE org_id = '` + org + `' AND deleted_at IS NULL GROUP BY 1, 2`,
		`VACUUM ANALYZE customers`, `VACUUM ANALYZE addresses`,
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			return err
		}
	}
	log.Printf("seeded in %s", time.Since(start).Round(time.Second))
	return nil
}
