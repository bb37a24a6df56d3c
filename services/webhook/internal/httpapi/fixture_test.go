package httpapi_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/kycfield/kyc/pkg/dnstest"
	"github.com/kycfield/kyc/pkg/envelope"
	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/ids"
	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/pkg/keyring"
	"github.com/kycfield/kyc/pkg/kitserver"
	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/pkg/outbox"
	"github.com/kycfield/kyc/pkg/pgtest"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/pkg/telemetry"
	"github.com/kycfield/kyc/services/webhook/internal/dispatch"
	"github.com/kycfield/kyc/services/webhook/internal/events"
	"github.com/kycfield/kyc/services/webhook/internal/httpapi"
	"github.com/kycfield/kyc/services/webhook/internal/postgres"
	"github.com/kycfield/kyc/services/webhook/internal/webhook"
	"github.com/kycfield/kyc/services/webhook/migrations"
)

// options shape a fixture.
type options struct {
	strict       bool // private targets off
	schedule     webhook.Schedule
	disableAfter time.Duration
	timeout      time.Duration
}

type fixture struct {
	t        *testing.T
	pool     *pgxpool.Pool
	mux      *http.ServeMux
	store    *postgres.Store
	consumer *inbox.Consumer
	reports  *inbox.Consumer // reporting-events
	cfg      dispatch.Config
	client   *http.Client
	d        *dispatch.Dispatcher // the running one
	stop     func()               // stops the running dispatcher
}

// hosts is the fixtures' resolver: names tests use, and nothing else.
var hosts = dnstest.Resolver(dnstest.Hosts{"hooks.example.com": {"93.184.216.34"}, "rebind.example.com": {"127.0.0.1"},
	"nat64.example.com": {"64:ff9b::a9fe:a9fe"}, "6to4.example.com": {"2002:a9fe:a9fe::1"},
	"mapped.example.com": {"::ffff:169.254.169.254"}, "mapped10.example.com": {"::ffff:10.0.0.1"}})

// setup serves the real routes on a fresh database, with the real
// consumer and a running dispatcher. The caller's organization and
// environment come from test headers in place of the gateway's principal.
func setup(t *testing.T, o options) *fixture {
	t.Helper()
	pool, _ := pgtest.NewDB(t, migrations.Set(), inbox.Migration(), outbox.Migration())
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	keys, err := keyring.Parse("t1:"+base64.StdEncoding.EncodeToString(key), "t1")
	if err != nil {
		t.Fatal(err)
	}
	store := postgres.New(pool, keys, "webhook-events", events.Disabled)
	policy := webhook.URLPolicy{SandboxPrivate: !o.strict, Resolver: hosts}
	svc := webhook.NewService(store, policy, time.Now)
	tel, err := telemetry.New(context.Background(), "webhook-test")
	if err != nil {
		t.Fatal(err)
	}
	eps := httpapi.MakeEndpoints(svc, kitserver.NewInstrumenter(logging.Discard(), tel.Meter("webhook")))
	protect := func(h http.Handler, _ ...principal.Kind) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			p := principal.Principal{Kind: principal.KindAPIKey, OrgID: r.Header.Get("X-Org"), Env: principal.Env(r.Header.Get("X-Env")),
				KeyID: "key_test", ClientIP: r.Header.Get("X-IP")}
			if u := r.Header.Get("X-User"); u != "" { // a member from the dashboard
				p.KeyID, p.UserID, p.MemberRole = "", u, principal.MemberRole(r.Header.Get("X-Role"))
			}
			h.ServeHTTP(w, r.WithContext(principal.With(r.Context(), p)))
		})
	}
	mux := http.NewServeMux()
	httpapi.Register(mux, eps, protect, logging.Discard())
	evs := webhook.NewEvents(store, keys, time.Now)
	httpapi.RegisterEvents(mux, httpapi.MakeEventEndpoints(evs, kitserver.NewInstrumenter(logging.Discard(), tel.Meter("webhook"))),
		protect, logging.Discard())
	if o.schedule == nil {
		o.schedule = webhook.Schedule{0, 50 * time.Millisecond, 100 * time.Millisecond, 150 * time.Millisecond}
	}
	if o.disableAfter == 0 {
		o.disableAfter = time.Hour
	}
	if o.timeout == 0 {
		o.timeout = 5 * time.Second
	}
	subs := events.Subscriptions(store.Within, "https://api.example.com")
	f := &fixture{t: t, pool: pool, mux: mux, store: store,
		consumer: inbox.New("webhook.verification", nil, pool, logging.Discard(), inbox.HandlerOf(subs, "webhook.verification")),
		reports:  inbox.New("webhook.reporting", nil, pool, logging.Discard(), inbox.HandlerOf(subs, "webhook.reporting")),
		cfg:      dispatch.Config{Workers: 16, PerEndpoint: 2, Schedule: o.schedule, DisableAfter: o.disableAfter, Poll: 50 * time.Millisecond},
		client:   dispatch.NewClient(policy, o.timeout)}
	f.start()
	t.Cleanup(func() { f.stop() })
	return f
}

// start runs a dispatcher, as a (re)started webhook process would.
func (f *fixture) start() {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	d := dispatch.New(f.cfg, f.store, f.pool, f.client, logging.Discard())
	f.d = d
	go func() { defer close(done); _ = d.Run(ctx) }()
	f.stop = func() { cancel(); <-done }
}

type tenant struct{ org, env string }

func newTenant() tenant { return tenant{ids.New("org"), "test"} }

type response struct {
	status int
	body   []byte
	env    envelope.Response
}

func (r response) code() string {
	if r.env.Error == nil {
		return ""
	}
	return r.env.Error.Code
}

func (f *fixture) call(who tenant, method, path string, body any) response {
	f.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req := httptest.NewRequest(method, path, rd)
	req.Header.Set("X-Org", who.org)
	req.Header.Set("X-Env", who.env)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	w := httptest.NewRecorder()
	f.mux.ServeHTTP(w, req)
	out := response{status: w.Code, body: w.Body.Bytes()}
	_ = json.Unmarshal(out.body, &out.env)
	return out
}

func decode[T any](t *testing.T, r response) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(r.env.Data, &v); err != nil {
		t.Fatalf("decode: %v (%s)", err, r.body)
	}
	return v
}

// endpoint registers url for who and returns it with its secret.
func (f *fixture) endpoint(who tenant, url string, extra map[string]any) httpapi.Endpoint {
	f.t.Helper()
	body := map[string]any{"url": url}
	for k, v := range extra {
		body[k] = v
	}
	r := f.call(who, "POST", "/api/v1/webhooks", body)
	if r.status != http.StatusCreated {
		f.t.Fatalf("create endpoint: %d %s", r.status, r.body)
	}
	return decode[httpapi.Endpoint](f.t, r)
}

// publish feeds a verification event through the real consumer, as Kafka
// would.
func (f *fixture) publish(who tenant, typ string, data any) event.Event {
	f.t.Helper()
	e, err := event.New(typ, who.org, who.env, data)
	if err != nil {
		f.t.Fatal(err)
	}
	c := f.consumer
	if typ == "report.generated" {
		c = f.reports
	}
	if err := c.Apply(context.Background(), e); err != nil {
		f.t.Fatal(err)
	}
	return e
}

// flagSentence is a flag's explanation as the verification context
// writes it: passed on to the receiver as it is.
const flagSentence = "The visit lasted 1 min 30 s from check-in to completion (under 3 min)."

func addressUpdated(customerID, addressID string, seq int) map[string]any {
	return map[string]any{"customerId": customerID, "addressId": addressID, "status": "VERIFIED", "sequence": seq,
		"occurredAt": time.Now().UTC().Format(time.RFC3339Nano),
		"verificationData": map[string]any{"verifiedAddress": "12 Adeola Odeku Street", "verifiedLatitude": 6.4281, "verifiedLongitude": 3.4219,
			"agentNotes": "Met the customer", "flags": []string{"SHORT_VISIT"}, "photoCount": 1,
			"flagDetails": []any{map[string]any{"code": "SHORT_VISIT", "severity": "warning", "message": flagSentence}}, "attempts": []any{}, "timeline": []any{},
			"verificationPhotos": []any{map[string]any{"url": "https://api.example.com/api/v1/verification/" + customerID + "/photos/pho_1",
				"tag": "building_front", "capturedAt": "2026-11-23T10:00:00.000Z"}}}}
}

func completed(customerID, addressID string) map[string]any {
	return map[string]any{"customerId": customerID, "customerName": "Ngozi Okafor", "overallStatus": "VERIFIED", "loanId": "LN-1",
		"loanType": "PERSONAL", "verificationDate": "2026-11-23T10:00:00.000Z", "documents": []any{},
		"addresses": []any{map[string]any{"id": addressID, "label": nil, "streetNumber": "12", "streetName": "Adeola Odeku Street",
			"landmark": nil, "city": "Victoria Island", "lga": nil, "state": "Lagos", "country": "Nigeria", "notes": nil,
			"status": "VERIFIED", "verificationData": addressUpdated(customerID, addressID, 3)["verificationData"]}}}
}

// received is one request a receiver got.
type received struct {
	header http.Header
	body   []byte
	status int // what the receiver answered
}

// receiver is a real HTTP server on loopback; answer picks the status of
// its nth request (1-based), and hang, while open, holds every request.
type receiver struct {
	*httptest.Server
	mu     sync.Mutex
	got    []received
	answer func(n int, body []byte) int
	hang   chan struct{}
}

func newReceiver(t *testing.T, answer func(n int, body []byte) int) *receiver {
	t.Helper()
	rc := &receiver{answer: answer}
	if rc.answer == nil {
		rc.answer = func(int, []byte) int { return http.StatusNoContent }
	}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		n := len(rc.got) + 1
		status := rc.answer(n, body)
		rc.got = append(rc.got, received{header: r.Header.Clone(), body: body, status: status})
		hang := rc.hang
		rc.mu.Unlock()
		if hang != nil {
			select {
			case <-hang:
			case <-r.Context().Done():
			}
		}
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"n":%d}`, n)
	}))
	t.Cleanup(rc.Close)
	return rc
}

func (rc *receiver) requests() []received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]received(nil), rc.got...)
}

// patience bounds every wait in these tests: long enough for a loaded
// machine, it only stops a test that would otherwise hang.
const patience = 30 * time.Second

// inFlight counts the deliveries a dispatcher has claimed and not yet
// recorded.
func (f *fixture) inFlight() int {
	f.t.Helper()
	var n int
	if err := f.pool.QueryRow(context.Background(), `SELECT count(*) FROM deliveries WHERE lease_until > now()`).Scan(&n); err != nil {
		f.t.Fatal(err)
	}
	return n
}

// verify checks a request with the Standard Webhooks reference library.
func verify(t *testing.T, secret string, r received) error {
	t.Helper()
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	return wh.Verify(r.body, r.header)
}

type deliveryList struct {
	Deliveries []httpapi.Delivery `json:"deliveries"`
	Pagination struct {
		Limit      int     `json:"limit"`
		HasNext    bool    `json:"hasNext"`
		NextCursor *string `json:"nextCursor"`
	} `json:"pagination"`
}

func (f *fixture) deliveries(who tenant, endpointID, query string) deliveryList {
	f.t.Helper()
	r := f.call(who, "GET", "/api/v1/webhooks/"+endpointID+"/deliveries"+query, nil)
	if r.status != http.StatusOK {
		f.t.Fatalf("deliveries: %d %s", r.status, r.body)
	}
	return decode[deliveryList](f.t, r)
}
