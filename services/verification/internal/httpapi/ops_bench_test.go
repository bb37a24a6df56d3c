package httpapi_test

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kycfield/kyc/pkg/gazetteer"
	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/pkg/kitserver"
	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/pkg/outbox"
	"github.com/kycfield/kyc/pkg/pgtest"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/pkg/telemetry"
	"github.com/kycfield/kyc/services/verification/internal/events"
	"github.com/kycfield/kyc/services/verification/internal/httpapi"
	"github.com/kycfield/kyc/services/verification/internal/postgres"
	"github.com/kycfield/kyc/services/verification/internal/verification"
	"github.com/kycfield/kyc/services/verification/internal/verification/view"
	"github.com/kycfield/kyc/services/verification/migrations"
)

var opsRows = flag.Int("ops-open", 100_000, "open live addresses BenchmarkOpsQueue seeds (besides 2x as many final and 0.5x sandbox ones)")

// BenchmarkOpsQueue is the console's queue and coverage at scale: it
// seeds -ops-open open live addresses spread over every LGA of the 37
// states and 5 organizations (60 % PENDING, 20 % ASSIGNED to 200 agents,
// 20 % IN_PROGRESS), twice as many finished live ones and half as many
// sandbox ones, with one INSERT ... SELECT generate_series each, then
// serves GET /ops/v1/queue (the first page, 50 items, with its summary),
// a filtered page (state=Lagos&due=overdue) and GET /ops/v1/coverage
// through the real handler and principal check, warm, and reports the
// median and p99 of each; it logs the EXPLAIN ANALYZE plans of the
// coverage and first-page queries.
//
//	go test -run x -bench OpsQueue -benchtime 200x ./internal/httpapi/
func BenchmarkOpsQueue(b *testing.B) {
	pool, _ := pgtest.NewDB(b, migrations.Set(), outbox.Migration(), inbox.Migration())
	ctx := context.Background()
	start := time.Now()
	seedOpen(b, pool, *opsRows)
	b.Logf("seeded %d open, %d final and %d sandbox addresses in %s", *opsRows, 2**opsRows, *opsRows/2, time.Since(start).Round(time.Second))

	render := view.Renderer{BaseURL: "https://api.example.com"}
	store := postgres.New(pool, "verification-events", events.Publisher{View: render}.Of)
	svc := verification.NewService(store, time.Now, verification.Sandbox{})
	signer, err := principal.NewSigner([]string{"a-test-secret-of-enough-bytes"}, time.Minute)
	if err != nil {
		b.Fatal(err)
	}
	tel, err := telemetry.New(ctx, "verification-bench")
	if err != nil {
		b.Fatal(err)
	}
	eps := httpapi.MakeEndpoints(svc, render, nil, kitserver.NewInstrumenter(logging.Discard(), tel.Meter("verification")))
	mux := http.NewServeMux()
	httpapi.RegisterOps(mux, eps.Ops, func(h http.Handler, kinds ...principal.Kind) http.Handler {
		return principal.Require(signer, logging.Discard(), kinds...)(h)
	}, logging.Discard())
	get := func(path string) time.Duration {
		r := httptest.NewRequest("GET", path, nil)
		u := r.URL.EscapedPath()
		p := principal.Principal{Kind: principal.KindStaff, StaffID: "stf_bench", StaffName: "Bench", Role: principal.RoleDispatcher}
		r.Header.Set(principal.Header, signer.Sign(p, "GET", u))
		w := httptest.NewRecorder()
		t0 := time.Now()
		mux.ServeHTTP(w, r)
		d := time.Since(t0)
		if w.Code != http.StatusOK {
			b.Fatalf("%s: %d %s", path, w.Code, w.Body)
		}
		return d
	}
	paths := []string{"/ops/v1/queue", "/ops/v1/queue?state=Lagos&due=overdue", "/ops/v1/coverage"}
	for _, p := range paths {
		for range 5 {
			get(p) // warm: the plan cache, the pool's connections, the pages
		}
	}
	took := make([][]time.Duration, len(paths))
	b.ResetTimer()
	for b.Loop() {
		for i, p := range paths {
			took[i] = append(took[i], get(p))
		}
	}
	b.StopTimer()
	for i, p := range paths {
		slices.Sort(took[i])
		n := len(took[i])
		b.Logf("%-40s p50 %6.2f ms  p99 %6.2f ms  (%d runs)", p, ms(took[i][n/2]), ms(took[i][min(n-1, n*99/100)]), n)
	}
	b.ReportMetric(ms(took[0][len(took[0])*99/100]), "queue-p99-ms")
	for name, q := range map[string]string{
		"coverage":         `SELECT j.state, j.lga, count(*), count(*) FILTER (WHERE j.status = 'PENDING') FROM jobs j WHERE j.env = 'live' AND j.status IN ('PENDING', 'ASSIGNED', 'IN_PROGRESS', 'IN_REVIEW') GROUP BY j.state, j.lga`,
		"queue first page": `SELECT j.address_id, j.due_by, c.first_name, o.name, a.name FROM jobs j JOIN cases c ON c.customer_id = j.customer_id LEFT JOIN org_settings o ON o.org_id = j.org_id LEFT JOIN agents a ON a.id = j.agent_id WHERE j.env = 'live' AND j.status IN ('PENDING', 'ASSIGNED', 'IN_PROGRESS', 'IN_REVIEW') ORDER BY j.due_by, j.address_id LIMIT 51`,
	} {
		rows, err := pool.Query(ctx, "EXPLAIN (ANALYZE, BUFFERS) "+q)
		if err != nil {
			b.Fatal(err)
		}
		var plan []string
		for rows.Next() {
			var line string
			_ = rows.Scan(&line)
			plan = append(plan, line)
		}
		// To stderr: the testing package cuts a benchmark's long log.
		fmt.Fprintf(os.Stderr, "EXPLAIN ANALYZE %s:\n%s\n", name, strings.Join(plan, "\n"))
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// seedOpen fills the tables: n open live jobs over every LGA, 2n final
// live ones, n/2 sandbox ones, their cases, 5 organizations and 200
// agents.
func seedOpen(b *testing.B, pool *pgxpool.Pool, n int) {
	g := gazetteer.Nigeria()
	var states, lgas []string
	for _, s := range g.States() {
		for _, l := range g.LGAs(s) {
			states, lgas = append(states, s), append(lgas, l)
		}
	}
	ctx := context.Background()
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO org_settings (org_id, name, version, updated_at, sla_hours)
			SELECT 'org_' || lpad(to_hex(i), 32, '0'), 'Lender ' || i, 1, now(), 24 * i FROM generate_series(1, 5) i`, nil},
		{`INSERT INTO agents (id, name, phone, states, lgas, active, created_at, updated_at)
			SELECT 'agt_' || lpad(to_hex(i), 32, '0'), 'Agent ' || i, '+23480' || lpad(i::text, 8, '0'),
				ARRAY[($1::text[])[1 + (i * 7) % array_length($1::text[], 1)]], '{}', true, now(), now()
			FROM generate_series(1, 200) i`, []any{states}},
		// Cases and jobs: i in 1..3.5n; the first n open live, then 2n
		// final live, then n/2 sandbox.
		{`INSERT INTO cases (customer_id, org_id, env, first_name, last_name, phone, status, created_at, updated_at)
			SELECT 'cus_' || lpad(to_hex(i), 32, '0'), 'org_' || lpad(to_hex(1 + i % 5), 32, '0'),
				CASE WHEN i > 3 * $1::int THEN 'test' ELSE 'live' END, 'Customer', 'No ' || i, '+2348' || lpad(i::text, 9, '0'),
				CASE WHEN i <= $1::int THEN 'IN_PROGRESS' ELSE 'VERIFIED' END, now() - (i % 400) * interval '1 hour', now()
			FROM generate_series(1, $1::int * 7 / 2) i`, []any{n}},
		{`INSERT INTO jobs (address_id, customer_id, org_id, env, position, address, status, sequence, agent_id, timeline,
				created_at, updated_at, due_by, completed_at)
			SELECT 'adr_' || lpad(to_hex(i), 32, '0'), 'cus_' || lpad(to_hex(i), 32, '0'), 'org_' || lpad(to_hex(1 + i % 5), 32, '0'),
				CASE WHEN i > 3 * $3::int THEN 'test' ELSE 'live' END, 0,
				jsonb_build_object('streetNumber', (i % 90 + 1)::text, 'streetName', 'Allen Avenue', 'city', a.lga, 'lga', a.lga,
					'state', a.state, 'country', 'Nigeria'),
				s.status, 1, CASE WHEN s.status IN ('ASSIGNED', 'IN_PROGRESS') THEN 'agt_' || lpad(to_hex(1 + i % 200), 32, '0') END,
				'[]', now() - (i % 400) * interval '1 hour', now(),
				CASE WHEN i <= 3 * $3::int THEN now() - (i % 400) * interval '1 hour' + (24 * (1 + i % 5)) * interval '1 hour' END,
				CASE WHEN s.status = 'VERIFIED' THEN now() END
			FROM generate_series(1, $3::int * 7 / 2) i
			CROSS JOIN LATERAL (SELECT ($1::text[])[1 + i % array_length($1::text[], 1)] AS state,
				($2::text[])[1 + i % array_length($2::text[], 1)] AS lga) a
			CROSS JOIN LATERAL (SELECT CASE WHEN i > $3::int THEN 'VERIFIED' WHEN i % 10 < 6 THEN 'PENDING'
				WHEN i % 10 < 8 THEN 'ASSIGNED' ELSE 'IN_PROGRESS' END AS status) s`, []any{states, lgas, n}},
		// As autovacuum leaves a table that has settled: statistics and
		// the visibility map, without which no scan is index-only.
		{`VACUUM ANALYZE`, nil},
	} {
		if _, err := pool.Exec(ctx, q.sql, q.args...); err != nil {
			b.Fatalf("seed: %v\n%s", err, q.sql)
		}
	}
}
