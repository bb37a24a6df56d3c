// Command statusbench measures GET /api/v1/verification/{id}/status at
// 1,000,000 customers against GET /api/v1/customers/{id} in the same run:
// both are the customer service's (it serves the status from the
// customer's own record, so a read agrees with the lender's last write),
// called directly with a signed principal (the gateway's cost is
// gwbench's subject), paced, interleaved in rounds, on random customers
// of the measured organization.
//
// The customers come from listbench's kept database (run listbench first:
// `go run ./cmd/listbench -rows 1000000`). Each run also prints the CPU
// each process spent per request (load.SampleCPU).
//
// -platform measures the status read as a lender polls it instead: the
// whole platform in this process, a sandbox key, through the gateway, on
// -customers VERIFIED sandbox customers it creates (no listbench
// database needed), with the CPU per read by process and, with
// -cpuprofile, a profile labelled by component (go tool pprof -tags).
//
//	go run ./cmd/statusbench -rate 200 -duration 10s -rounds 3
//	go run ./cmd/statusbench -platform -customers 300 -rate 200 -duration 10s -rounds 3 -cpuprofile status.pprof
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/bench/load"
	"github.com/kycfield/kyc/pkg/config"
	"github.com/kycfield/kyc/pkg/kafkatest"
	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/pkg/miniotest"
	"github.com/kycfield/kyc/pkg/pgtest"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/stack"
)

func main() {
	customersDB := flag.String("customers-db", "kyc_bench_list_v4_1000000", "listbench's kept customer database")
	rate := flag.Int("rate", 200, "requests per second of each paced run")
	dur := flag.Duration("duration", 10*time.Second, "length of each run")
	rounds := flag.Int("rounds", 3, "interleaved rounds")
	viaGateway := flag.Bool("platform", false, "poll through the gateway on the whole platform, on sandbox customers it creates")
	n := flag.Int("customers", 300, "-platform: sandbox customers to create and poll")
	cpuprofile := flag.String("cpuprofile", "", "-platform: write a CPU profile of the rounds here")
	flag.Parse()
	ctx := context.Background()
	if *viaGateway {
		viaPlatform(ctx, platformRun{customers: *n, rate: *rate, duration: *dur, rounds: *rounds, cpuprofile: *cpuprofile})
		return
	}
	admin := pgtest.AdminURL()
	custURL := strings.Replace(admin, "/postgres?", "/"+*customersDB+"?", 1)

	org, env, ids, err := customers(ctx, custURL)
	if err != nil {
		log.Fatalf("%v (run listbench first: go run ./cmd/listbench -rows 1000000)", err)
	}
	log.Printf("%d customers of %s/%s", len(ids), org, env)
	custBase, stop, err := start(ctx, custURL)
	if err != nil {
		log.Fatal(err)
	}
	defer stop()

	var common config.Common
	if err := config.Load(&common); err != nil {
		log.Fatal(err)
	}
	signer, _ := principal.NewSigner(common.PrincipalSecrets, common.PrincipalTTL)
	who := principal.Principal{Kind: principal.KindAPIKey, OrgID: org, Env: principal.Env(env), KeyID: "bench", Scopes: []string{principal.ScopeRead}}
	get := func(base, path func(id string) string) load.NewRequest {
		return func() *http.Request {
			p := path(ids[rand.IntN(len(ids))])
			req, _ := http.NewRequest("GET", base("")+p, nil)
			req.Header.Set(principal.Header, signer.Sign(who, "GET", p))
			return req
		}
	}
	targets := []struct {
		name string
		req  load.NewRequest
	}{
		{"customer GET", get(func(string) string { return custBase }, func(id string) string { return "/api/v1/customers/" + id })},
		{"status GET", get(func(string) string { return custBase }, func(id string) string { return "/api/v1/verification/" + id + "/status" })},
	}
	client := load.Client(32)
	p50s, p99s := map[string][]float64{}, map[string][]float64{}
	for r := 1; r <= *rounds; r++ {
		for _, tg := range targets {
			before := load.SampleCPU(*customersDB)
			res := load.Paced(ctx, tg.name, client, *rate, *dur, http.StatusOK, tg.req)
			cpu := load.CPUSince(load.SampleCPU(*customersDB), before)
			delete(cpu, "other")
			fmt.Printf("round %d  %s\n  CPU µs per request: %s\n", r, res, load.ByGroup(cpu, 1e6/float64(max(res.Requests, 1)), "%.0f"))
			p50s[tg.name] = append(p50s[tg.name], load.MS(res.P50))
			p99s[tg.name] = append(p99s[tg.name], load.MS(res.P99))
		}
	}
	fmt.Printf("\nmedians over %d rounds, %d req/s for %s each, random customers of %d:\n", *rounds, *rate, *dur, len(ids))
	for _, tg := range targets {
		fmt.Printf("  %-13s p50 %6.2f ms   p99 %6.2f ms\n", tg.name, load.Median(p50s[tg.name]), load.Median(p99s[tg.name]))
	}
}

// customers returns the organization and environment with the most
// customers and their ids.
func customers(ctx context.Context, dbURL string) (string, string, []string, error) {
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return "", "", nil, err
	}
	defer conn.Close(ctx)
	var org, env string
	if err := conn.QueryRow(ctx, `SELECT org_id, env FROM customers WHERE deleted_at IS NULL
		GROUP BY 1, 2 ORDER BY count(*) DESC LIMIT 1`).Scan(&org, &env); err != nil {
		return "", "", nil, err
	}
	rows, err := conn.Query(ctx, `SELECT id FROM customers WHERE org_id = $1 AND env = $2 AND deleted_at IS NULL`, org, env)
	if err != nil {
		return "", "", nil, err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	return org, env, ids, err
}

// start runs the customer service on the bench database.
func start(ctx context.Context, custURL string) (string, func(), error) {
	bus, err := kafkatest.NewConfig(ctx)
	if err != nil {
		return "", nil, err
	}
	store := miniotest.Store()
	shared := config.Environ()
	for k, v := range map[string]string{"KAFKA_BROKERS": strings.Join(bus.Brokers, ","), "KAFKA_TOPIC_PREFIX": bus.TopicPrefix,
		"LOG_LEVEL": "warn", "HTTP_ADDR": "127.0.0.1:0", "MINIO_ENDPOINT": store.Endpoint, "MINIO_ACCESS_KEY": store.AccessKey,
		"MINIO_SECRET_KEY": store.SecretKey, "MINIO_BUCKET": "t-statusbench", "SANDBOX_POLL": "1h"} {
		shared[k] = v
	}
	life, cancel := context.WithCancel(ctx)
	urls := map[string]string{}
	var running []*stack.Instance
	for name, db := range map[string]string{"customer": custURL} {
		s, _ := stack.Find(name)
		inst, err := stack.Start(ctx, life, s, s.Environ(shared, map[string]string{"DATABASE_URL": db}), logging.New(name, "warn"))
		if err != nil {
			cancel()
			return "", nil, err
		}
		running = append(running, inst)
		urls[name] = inst.URL
	}
	stop := func() {
		cancel()
		for _, i := range running {
			_ = i.Wait()
		}
		kafkatest.DeleteTopics(bus)
	}
	return urls["customer"], stop, nil
}
