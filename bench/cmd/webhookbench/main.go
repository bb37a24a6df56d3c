// Command webhookbench measures webhook delivery end to end: verification
// events committed to an outbox (as the verification service commits
// them), relayed to Kafka by the platform's outbox relay, consumed by the
// webhook service into its Postgres schedule and delivered by its
// dispatcher to a local receiver. Latency is from the event's commit to
// the receiver's 2xx; one endpoint per organization; -hang 10 makes every
// 10th endpoint hang (never answer within the 15 s timeout), and only the
// healthy endpoints' deliveries are measured.
//
//	go run ./cmd/webhookbench -rate 200 -duration 20s            # paced
//	go run ./cmd/webhookbench -rate 200 -duration 20s -hang 10   # 1 in 10 endpoints hanging
//	go run ./cmd/webhookbench -burst 5000                        # throughput
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/bench/load"
	"github.com/kycfield/kyc/pkg/config"
	"github.com/kycfield/kyc/pkg/kafkatest"
	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/pkg/pgtest"
	"github.com/kycfield/kyc/stack"
)

func main() {
	rate := flag.Int("rate", 200, "events per second (paced mode)")
	dur := flag.Duration("duration", 20*time.Second, "length of the paced run")
	burst := flag.Int("burst", 0, "throughput mode: commit this many events at once and time their delivery")
	orgs := flag.Int("orgs", 100, "organizations, one endpoint each")
	hang := flag.Int("hang", 0, "every n-th endpoint hangs (0: none)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the measured run (every stage runs in this process) to this file")
	flag.Parse()
	ctx := context.Background()

	rc := newReceiver()
	base, prod, dbURL, stop, err := start(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer stop()
	var common config.Common
	if err := config.Load(&common); err != nil {
		log.Fatal(err)
	}
	tenants, err := register(base, common.PrincipalSecrets, rc.url, *orgs, *hang)
	if err != nil {
		log.Fatal(err)
	}
	// Warm up: one event per organization, not measured.
	for _, tn := range tenants {
		if _, err := prod.commit(ctx, tn); err != nil {
			log.Fatal(err)
		}
	}
	rc.waitHealthy(len(tenants)-countHanging(tenants), time.Minute)
	rc.reset()

	stopProfile := load.Profile(*cpuprofile)
	var sent []sentEvent
	start := time.Now()
	if *burst > 0 {
		sent, err = prod.burst(ctx, tenants, *burst)
	} else {
		sent, err = prod.paced(ctx, tenants, *rate, *dur)
	}
	if err != nil {
		log.Fatal(err)
	}
	healthy := 0
	for _, s := range sent {
		if !s.hanging {
			healthy++
		}
	}
	loadEnd := time.Now()
	backlog := healthy - rc.count()
	rc.waitHealthy(healthy, 2*time.Minute)
	stopProfile()
	report(sent, rc, start, *burst > 0)
	if *burst == 0 {
		fmt.Printf("  backlog when the load stopped: %d of %d healthy deliveries not yet received (%.1f s later: all)\n",
			backlog, healthy, time.Since(loadEnd).Seconds())
	}
	if err := prod.relayed(ctx, start); err != nil {
		log.Print(err)
	}
	if err := stages(ctx, dbURL, start); err != nil {
		log.Print(err)
	}
}

// stages splits the latency with the times the webhook service records:
// the event's time (just before its commit) to its delivery row (outbox
// relay, Kafka, consumer), then to the first attempt's start (dispatcher).
func stages(ctx context.Context, dbURL string, since time.Time) error {
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	var c50, c99, d50, d99 float64
	err = conn.QueryRow(ctx, `SELECT
		percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM d.created_at - m.created_at)),
		percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM d.created_at - m.created_at)),
		percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM a.at - d.created_at)),
		percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM a.at - d.created_at))
		FROM deliveries d JOIN messages m ON m.id = d.message_id JOIN attempts a ON a.delivery_id = d.id AND a.number = 1
		WHERE m.created_at >= $1 AND a.succeeded`, since).Scan(&c50, &c99, &d50, &d99)
	if err != nil {
		return err
	}
	fmt.Printf("  stages: event -> scheduled (relay, Kafka, consumer) p50 %.1f ms p99 %.1f ms; scheduled -> sent (dispatcher) p50 %.1f ms p99 %.1f ms\n",
		c50*1000, c99*1000, d50*1000, d99*1000)
	return nil
}

// report prints throughput and commit-to-2xx latency of the healthy
// endpoints' deliveries.
func report(sent []sentEvent, rc *receiver, start time.Time, burst bool) {
	var lat []time.Duration
	last := start
	missing := 0
	for _, s := range sent {
		if s.hanging {
			continue
		}
		at, ok := rc.at(s.id)
		if !ok {
			missing++
			continue
		}
		lat = append(lat, at.Sub(s.committed))
		if at.After(last) {
			last = at
		}
	}
	slices.Sort(lat)
	res := load.Summarise("deliveries", lat, missing, last.Sub(start))
	mode := "paced"
	if burst {
		mode = "burst"
	}
	fmt.Printf("%s: %d events committed (%d to hanging endpoints), %d delivered to healthy endpoints in %.1f s\n",
		mode, len(sent), len(sent)-len(lat)-missing, len(lat), last.Sub(start).Seconds())
	fmt.Printf("  %.0f deliveries/s   commit -> 2xx  p50 %.1f ms  p99 %.1f ms  max %.1f ms  (%d missing)\n",
		float64(len(lat))/last.Sub(start).Seconds(), load.MS(res.P50), load.MS(res.P99), load.MS(res.Max), missing)
}

// start runs the webhook service on a fresh database and topics, and a
// producer database with the outbox table and its relay.
func start(ctx context.Context) (string, *producer, string, func(), error) {
	bus, err := kafkatest.NewConfig(ctx)
	if err != nil {
		return "", nil, "", nil, err
	}
	dbURL, dropDB, err := pgtest.Create(ctx, "webhookbench")
	if err != nil {
		return "", nil, "", nil, err
	}
	shared := config.Environ()
	for k, v := range map[string]string{"KAFKA_BROKERS": strings.Join(bus.Brokers, ","), "KAFKA_TOPIC_PREFIX": bus.TopicPrefix,
		"LOG_LEVEL": "warn", "HTTP_ADDR": "127.0.0.1:0", "DATABASE_URL": dbURL, "WEBHOOK_ALLOW_PRIVATE": "true"} {
		shared[k] = v
	}
	life, cancel := context.WithCancel(ctx)
	s, _ := stack.Find("webhook")
	inst, err := stack.Start(ctx, life, s, s.Environ(shared), logging.New("webhook", "warn"))
	if err != nil {
		cancel()
		return "", nil, "", nil, err
	}
	prod, err := newProducer(life, bus)
	if err != nil {
		cancel()
		return "", nil, "", nil, err
	}
	stop := func() {
		cancel()
		_ = inst.Wait()
		prod.close()
		dropDB()
		kafkatest.DeleteTopics(bus)
	}
	return inst.URL, prod, dbURL, stop, nil
}

// receiver answers 204 on /ok/... and never answers (until the client
// gives up) on /hang/...; it records when each event id got its 2xx.
type receiver struct {
	url  string
	mu   sync.Mutex
	seen map[string]time.Time
}

func newReceiver() *receiver {
	rc := &receiver{seen: map[string]time.Time{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	rc.url = "http://" + ln.Addr().String()
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/hang/") {
			<-r.Context().Done()
			return
		}
		now := time.Now()
		rc.mu.Lock()
		if _, dup := rc.seen[r.Header.Get("webhook-id")]; !dup {
			rc.seen[r.Header.Get("webhook-id")] = now
		}
		rc.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	})}
	go func() { _ = srv.Serve(ln) }()
	return rc
}

func (rc *receiver) at(id string) (time.Time, bool) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	t, ok := rc.seen[id]
	return t, ok
}

func (rc *receiver) count() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return len(rc.seen)
}

func (rc *receiver) reset() {
	rc.mu.Lock()
	rc.seen = map[string]time.Time{}
	rc.mu.Unlock()
}

func (rc *receiver) waitHealthy(n int, max time.Duration) {
	deadline := time.Now().Add(max)
	for time.Now().Before(deadline) {
		rc.mu.Lock()
		got := len(rc.seen)
		rc.mu.Unlock()
		if got >= n {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	log.Printf("warning: gave up waiting for %d deliveries", n)
}
