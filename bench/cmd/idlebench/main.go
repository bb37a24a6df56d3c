// Command idlebench measures what the platform costs when nobody uses it:
// it starts a private devkafka and the whole platform in this process
// with `make run`'s settings (fresh databases, topic prefix, Redis prefix
// and buckets, as the end-to-end harness makes them, but none of the
// tests' short polls), lets it settle, and then reports the CPU time each
// process spent over the window: this process (every service and the
// gateway), the devkafka child, and the PostgreSQL backends serving the
// run's databases, with the transactions each database committed.
//
//	go run ./cmd/idlebench -devkafka ../bin/devkafka -settle 10s -window 30s
//
// With -scrape 15s it also reads every service's /metrics at that
// interval, as a Prometheus server would.
//
// The shared PostgreSQL and Redis servers' own background work is not
// counted: it is there whether the platform runs or not.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/bench/load"
	"github.com/kycfield/kyc/e2e/harness"
	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/pkg/platform"
	"github.com/kycfield/kyc/stack"
)

// testTunings are settings the harness shortens for tests; make run
// keeps their defaults, and so does this benchmark.
var testTunings = []string{"SANDBOX_DELAY", "SANDBOX_POLL", "WEBHOOK_POLL", "WEBHOOK_RETRY_SCHEDULE", "USAGE_REPORT_INTERVAL", "BCRYPT_COST"}

func main() {
	devkafka := flag.String("devkafka", "../bin/devkafka", "devkafka binary (make build puts it in bin/)")
	settle := flag.Duration("settle", 10*time.Second, "wait after the platform is ready (consumer groups join, first polls) before measuring")
	window := flag.Duration("window", 30*time.Second, "measurement window")
	rounds := flag.Int("rounds", 1, "consecutive windows to measure")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the first window (this process) to this file")
	queries := flag.Bool("queries", false, "sample pg_stat_activity every 100 ms during the first window and list the statements seen, by database (who wakes Postgres up)")
	scrape := flag.Duration("scrape", 0, "GET every service's /metrics at this interval, as Prometheus would (0: nobody scrapes)")
	flag.Parse()
	ctx := context.Background()

	kafkaAddr, stopKafka, kafkaPID, err := startKafka(*devkafka)
	if err != nil {
		log.Fatal(err)
	}
	defer stopKafka()
	os.Setenv("KYC_TEST_KAFKA_BROKERS", kafkaAddr)
	stores, err := harness.NewStores(ctx)
	if err != nil {
		stopKafka()
		log.Fatal(err)
	}
	defer stores.Close()

	life, stop := context.WithCancel(ctx)
	ready := make(chan struct{})
	var urls map[string]string
	done := make(chan error, 1)
	shared := stores.Shared()
	shared["KYC_MODE"] = "local"
	go func() {
		done <- stack.Run(life, stack.Options{
			Environ: shared,
			Override: func(s platform.Service) map[string]string {
				o := stores.Override(s)
				for _, k := range testTunings {
					delete(o, k)
				}
				return o
			},
			Log:   func(name string) *slog.Logger { return logging.NewTo(os.Stderr, name, "warn") },
			Ready: func(u map[string]string) { urls = u; close(ready) },
		})
	}()
	select {
	case <-ready:
	case err := <-done:
		log.Fatalf("platform: %v", err)
	}
	fmt.Printf("platform ready; settling for %s\n", *settle)
	if *scrape > 0 {
		// The gateway serves its metrics on an admin port the stack does
		// not report, and has no lag gauge to ask the broker: the
		// services are what a scrape wakes.
		delete(urls, stack.Gateway.Name)
		go scrapeEvery(life, *scrape, urls)
		fmt.Printf("scraping %d services' /metrics every %s\n", len(urls), *scrape)
	}
	time.Sleep(*settle)

	var dbs []string
	for _, u := range stores.DatabaseURLs {
		if c, err := pgx.ParseConfig(u); err == nil {
			dbs = append(dbs, c.Database)
		}
	}
	sort.Strings(dbs)
	pg, err := pgx.Connect(ctx, adminURL(stores.DatabaseURLs))
	if err != nil {
		log.Fatal(err)
	}
	defer pg.Close(ctx)

	self := os.Getpid()
	for i := range *rounds {
		var prof *os.File
		if *cpuprofile != "" && i == 0 {
			if prof, err = os.Create(*cpuprofile); err != nil {
				log.Fatal(err)
			}
			_ = pprof.StartCPUProfile(prof)
		}
		backends0, xacts0 := pgSample(ctx, pg, dbs)
		cpu0 := map[string]float64{"platform": ticks(self), "devkafka": ticks(kafkaPID), "postgres": sum(backends0)}
		if *queries && i == 0 {
			watchQueries(ctx, pg, dbs, *window)
		} else {
			time.Sleep(*window)
		}
		backends1, xacts1 := pgSample(ctx, pg, dbs)
		// A backend counts only if it lived through the window.
		var before, after float64
		for pid, t := range backends1 {
			if t0, ok := backends0[pid]; ok {
				before += t0
				after += t
			}
		}
		cpu := map[string]float64{"platform": ticks(self) - cpu0["platform"], "devkafka": ticks(kafkaPID) - cpu0["devkafka"], "postgres": after - before}
		if prof != nil {
			pprof.StopCPUProfile()
			prof.Close()
		}
		report(i+1, *window, cpu, xacts0, xacts1)
	}
	stop()
	if err := <-done; err != nil {
		log.Printf("platform: %v", err)
	}
}

func report(round int, window time.Duration, cpu map[string]float64, xacts0, xacts1 map[string]int64) {
	total := 0.0
	fmt.Printf("\nround %d, %s idle:\n| process | CPU s | %% of one core |\n|---|---:|---:|\n", round, window)
	for _, p := range []string{"platform", "devkafka", "postgres"} {
		total += cpu[p]
		fmt.Printf("| %s | %.2f | %.2f %% |\n", p, cpu[p], 100*cpu[p]/window.Seconds())
	}
	fmt.Printf("| all | %.2f | %.2f %% |\n", total, 100*total/window.Seconds())
	var names []string
	var n int64
	for db := range xacts1 {
		names = append(names, db)
	}
	sort.Strings(names)
	var parts []string
	for _, db := range names {
		d := xacts1[db] - xacts0[db]
		n += d
		parts = append(parts, fmt.Sprintf("%s %d", serviceOf(db), d))
	}
	fmt.Printf("transactions committed: %d (%.1f/s): %s\n", n, float64(n)/window.Seconds(), strings.Join(parts, ", "))
}

// serviceOf shortens a test database name (pgtest: t_<service>_<random>).
func serviceOf(db string) string {
	i, j := strings.IndexByte(db, '_'), strings.LastIndexByte(db, '_')
	if i >= 0 && j > i {
		return db[i+1 : j]
	}
	return db
}

// startKafka runs a private devkafka on a free port with make run's
// flags, so that its CPU is this run's alone.
func startKafka(bin string) (addr string, stop func(), pid int, err error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, 0, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	dir, err := os.MkdirTemp("", "idlebench-kafka")
	if err != nil {
		return "", nil, 0, err
	}
	cmd := exec.Command(bin, "-port", strconv.Itoa(port), "-data", dir, "-partitions", "3", "-log-level", "warn")
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return "", nil, 0, fmt.Errorf("devkafka: %w (build it with make build, or pass -devkafka)", err)
	}
	stop = func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
		_ = os.RemoveAll(dir)
	}
	addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	for range 100 {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return addr, stop, cmd.Process.Pid, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	stop()
	return "", nil, 0, fmt.Errorf("devkafka did not listen on %s", addr)
}

// adminURL is one of the run's database URLs pointed at the postgres
// database, to read the statistics views.
func adminURL(urls map[string]string) string {
	for _, u := range urls {
		if c, err := pgx.ParseConfig(u); err == nil {
			return strings.Replace(u, "/"+c.Database, "/postgres", 1)
		}
	}
	return "postgres://postgres@127.0.0.1:5432/postgres"
}

// pgSample returns the CPU seconds of every backend connected to dbs, and
// the transactions each of dbs has committed.
func pgSample(ctx context.Context, pg *pgx.Conn, dbs []string) (map[int]float64, map[string]int64) {
	backends := map[int]float64{}
	rows, err := pg.Query(ctx, `SELECT pid FROM pg_stat_activity WHERE datname = ANY($1)`, dbs)
	if err == nil {
		for rows.Next() {
			var pid int
			if rows.Scan(&pid) == nil {
				backends[pid] = ticks(pid)
			}
		}
		rows.Close()
	}
	xacts := map[string]int64{}
	// The statistics are a snapshot per transaction: read them fresh.
	_, _ = pg.Exec(ctx, `SELECT pg_stat_clear_snapshot()`)
	rows, err = pg.Query(ctx, `SELECT datname, xact_commit FROM pg_stat_database WHERE datname = ANY($1)`, dbs)
	if err == nil {
		for rows.Next() {
			var db string
			var n int64
			if rows.Scan(&db, &n) == nil {
				xacts[db] = n
			}
		}
		rows.Close()
	}
	return backends, xacts
}

func sum(m map[int]float64) float64 {
	t := 0.0
	for v := range maps.Values(m) {
		t += v
	}
	return t
}

// ticks is a process's user and system CPU so far, in seconds (USER_HZ
// is 100 on every mainstream Linux build).
func ticks(pid int) float64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return float64(ut+st) / 100
}

// watchQueries samples the run's backends for window and prints each
// statement seen with how many times it started (a statement that starts
// and ends between two samples is missed: the counts are a lower bound).
func watchQueries(ctx context.Context, pg *pgx.Conn, dbs []string, window time.Duration) {
	type start struct {
		pid int
		at  time.Time
	}
	seen := map[start]bool{}
	counts := map[string]int{}
	end := time.Now().Add(window)
	for time.Now().Before(end) {
		rows, err := pg.Query(ctx, `SELECT pid, datname, query_start, left(regexp_replace(query, '\s+', ' ', 'g'), 90)
			FROM pg_stat_activity WHERE datname = ANY($1) AND query_start IS NOT NULL`, dbs)
		if err == nil {
			for rows.Next() {
				var pid int
				var db, q string
				var at time.Time
				if rows.Scan(&pid, &db, &at, &q) == nil && !seen[start{pid, at}] {
					seen[start{pid, at}] = true
					counts[serviceOf(db)+": "+q]++
				}
			}
			rows.Close()
		}
		time.Sleep(100 * time.Millisecond)
	}
	var keys []string
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(a, b int) bool { return counts[keys[a]] > counts[keys[b]] })
	fmt.Println("statements started during the window (sampled every 100 ms):")
	for _, k := range keys {
		fmt.Printf("  %4d  %s\n", counts[k], k)
	}
}

// scrapeEvery reads each URL's /metrics every interval, as a
// Prometheus server would: a scrape is work the platform does when idle
// (the lag gauges ask the broker), and so is counted.
func scrapeEvery(ctx context.Context, every time.Duration, urls map[string]string) {
	client := &http.Client{Timeout: 5 * time.Second}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		for name, u := range urls {
			if _, err := load.Metrics(client, u); err != nil {
				log.Printf("scrape %s: %v", name, err)
			}
		}
	}
}
