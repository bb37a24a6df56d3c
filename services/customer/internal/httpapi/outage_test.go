package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/envelope"
	"github.com/kycfield/kyc/pkg/faultproxy"
	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/pkg/keyring"
	"github.com/kycfield/kyc/pkg/kitserver"
	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/pkg/outbox"
	"github.com/kycfield/kyc/pkg/pgdb"
	"github.com/kycfield/kyc/pkg/pgtest"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/pkg/telemetry"
	"github.com/kycfield/kyc/services/customer/internal/customer"
	"github.com/kycfield/kyc/services/customer/internal/events"
	"github.com/kycfield/kyc/services/customer/internal/postgres"
	"github.com/kycfield/kyc/services/customer/migrations"
)

// outageService is the customer service's real routes, service and
// repository on a fresh database reached through a proxy that can cut
// its connections.
type outageService struct {
	url   string
	proxy *faultproxy.Proxy
}

func startBehindProxy(t *testing.T) outageService {
	t.Helper()
	ctx := context.Background()
	dbURL := pgtest.CreateDB(t)
	if err := pgdb.Migrate(ctx, dbURL, migrations.Set(), outbox.Migration(), inbox.Migration()); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := faultproxy.Start(t, u.Host)
	u.Host = proxy.Addr()
	pool, err := pgdb.Open(ctx, u.String(), 8)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	keys, err := keyring.Parse("k1:jSv7ih3Y8m8Zgui3cFjZHBJZGwcPPrL1k2W8ntQftE0=", "k1")
	if err != nil {
		t.Fatal(err)
	}
	tel, err := telemetry.New(ctx, "customer-test")
	if err != nil {
		t.Fatal(err)
	}
	svc := customer.NewService(postgres.New(pool, keys, "customer-events", events.Of), time.Now)
	mux := http.NewServeMux()
	protect := func(h http.Handler, _ ...principal.Kind) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h.ServeHTTP(w, r.WithContext(principal.With(r.Context(), principal.Principal{Kind: principal.KindAPIKey, OrgID: "org_outage", Env: principal.EnvTest, KeyID: "key_outage"})))
		})
	}
	Register(mux, MakeEndpoints(svc, kitserver.NewInstrumenter(logging.Discard(), tel.Meter("customer"))), svc, protect, logging.Discard())
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return outageService{url: srv.URL, proxy: proxy}
}

// outcome is a response as this test judges it: "200", "503 with
// Retry-After", or anything else spelled out.
func (s outageService) outcome(t *testing.T, method, path, body string) string {
	t.Helper()
	req, err := http.NewRequest(method, s.url+path, strings.NewReader(body))
	if err != nil {
		t.Error(err)
		return "no request"
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "transport error: " + err.Error()
	}
	defer resp.Body.Close()
	var env envelope.Response
	_ = json.NewDecoder(resp.Body).Decode(&env)
	switch {
	case resp.StatusCode < 300:
		return "2xx"
	case resp.StatusCode == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") != "" &&
		env.Error != nil && env.Error.Code == apperr.CodeServiceUnavailable:
		return "503 with Retry-After"
	case env.Error != nil:
		return fmt.Sprintf("%d %s", resp.StatusCode, env.Error.Code)
	}
	return resp.Status
}

func (s outageService) create(t *testing.T, phone string) string {
	t.Helper()
	resp, err := http.Post(s.url+"/api/v1/customers", "application/json", strings.NewReader(`{"firstName":"Ngozi","lastName":"Okafor","phone":"`+phone+`",
		"addresses":[{"streetName":"Allen Avenue","city":"Ikeja","state":"Lagos"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var env envelope.Response
	var c struct{ ID string }
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil || resp.StatusCode != http.StatusCreated || json.Unmarshal(env.Data, &c) != nil {
		t.Fatalf("create: %d %v %+v", resp.StatusCode, err, env.Error)
	}
	return c.ID
}

// Cutting every database connection under a steady read load (a Postgres
// restart or failover, as the service sees it) costs no client a 5xx: the
// read that meets a dead connection is retried once on a live one, and a
// read right after each cut succeeds. While the database refuses
// connections, reads and writes are 503 with Retry-After; the first read
// once it is back succeeds.
func TestDatabaseCutsUnderReadLoad(t *testing.T) {
	s := startBehindProxy(t)
	ids := []string{s.create(t, "+2348030000001"), s.create(t, "+2348030000002"), s.create(t, "+2348030000003")}
	paths := []string{"/api/v1/customers", "/api/v1/customers?search=ngozi", "/api/v1/customers?status=PENDING&limit=2"}
	for _, id := range ids {
		paths = append(paths, "/api/v1/customers/"+id)
	}

	const loaders = 6
	var (
		mu       sync.Mutex
		outcomes = map[string]int{}
		// epoch counts the cuts; done[w] is the epoch in which loader w's
		// latest finished request began. Loaders are sequential, so once
		// every done[w] reaches the current epoch, no request (nor its
		// retry) from before the cut is still running: the barrier that
		// keeps one cut from landing on the recovery from the last.
		epoch atomic.Int64
		done  [loaders]atomic.Int64
		stop  = make(chan struct{})
		wg    sync.WaitGroup
	)
	for w := range loaders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				began := epoch.Load()
				o := s.outcome(t, "GET", paths[i%len(paths)], "")
				mu.Lock()
				outcomes[o]++
				mu.Unlock()
				done[w].Store(began)
			}
		}()
	}
	caughtUp := func() {
		for w := range done {
			for done[w].Load() < epoch.Load() {
				time.Sleep(time.Millisecond)
			}
		}
	}
	caughtUp()
	cuts := 0
	for range 5 {
		cuts += s.proxy.Cut()
		epoch.Add(1)
		if o := s.outcome(t, "GET", paths[0], ""); o != "2xx" {
			t.Errorf("read right after a cut: %s", o)
		}
		caughtUp()
		epoch.Add(1) // and one clean round between cuts
		caughtUp()
	}
	close(stop)
	wg.Wait()
	t.Logf("%d connections cut; outcomes of the steady load: %v", cuts, outcomes)
	for o, n := range outcomes {
		if o != "2xx" {
			t.Errorf("%d requests answered %s", n, o)
		}
	}
	if cuts < 5 || outcomes["2xx"] == 0 {
		t.Fatalf("nothing was tested: %d connections cut, outcomes %v", cuts, outcomes)
	}

	// The database is down: refused, not hung.
	s.proxy.Refuse(true)
	s.proxy.Cut()
	for _, p := range paths {
		if o := s.outcome(t, "GET", p, ""); o != "503 with Retry-After" {
			t.Errorf("GET %s while the database is down: %s", p, o)
		}
	}
	if o := s.outcome(t, "POST", "/api/v1/customers", `{"firstName":"Ada","lastName":"Obi","phone":"+2348030000009",
		"addresses":[{"streetName":"Allen Avenue","city":"Ikeja","state":"Lagos"}]}`); o != "503 with Retry-After" {
		t.Errorf("create while the database is down: %s", o)
	}
	s.proxy.Refuse(false)
	if o := s.outcome(t, "GET", paths[0], ""); o != "2xx" {
		t.Errorf("first read once the database is back: %s", o)
	}
}

// Against the real database: a search Postgres cannot hold (it answered
// "invalid byte sequence", a 500) is a 400 from the service itself, for a
// caller that did not come through the gateway; a clean one still works.
func TestUnstorableSearchIsA400FromTheService(t *testing.T) {
	s := startBehindProxy(t)
	s.create(t, "+2348030000001")
	for _, q := range []string{"search=%00", "search=ngozi%00", "search=%FF", "search=caf%E9", "status=%00"} {
		if o := s.outcome(t, "GET", "/api/v1/customers?"+q, ""); o != "400 VALIDATION_ERROR" {
			t.Errorf("?%s: %s", q, o)
		}
	}
	if o := s.outcome(t, "GET", "/api/v1/customers?search=Ngozi", ""); o != "2xx" {
		t.Errorf("clean search: %s", o)
	}
}
