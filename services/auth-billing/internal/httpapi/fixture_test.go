package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/pkg/keyring"
	"github.com/kycfield/kyc/pkg/kitserver"
	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/pkg/outbox"
	"github.com/kycfield/kyc/pkg/pgtest"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/pkg/telemetry"
	"github.com/kycfield/kyc/services/auth-billing/internal/account"
	"github.com/kycfield/kyc/services/auth-billing/internal/billing"
	"github.com/kycfield/kyc/services/auth-billing/internal/events"
	"github.com/kycfield/kyc/services/auth-billing/internal/httpapi"
	"github.com/kycfield/kyc/services/auth-billing/internal/postgres"
	"github.com/kycfield/kyc/services/auth-billing/migrations"
)

// clock is the service's clock, moved on by the tests.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// openThrottle lets every attempt through: the limits are the throttle
// package's tests' business.
type openThrottle struct{}

func (openThrottle) Reserve(context.Context, string, string) (time.Duration, error) { return 0, nil }
func (openThrottle) Succeeded(context.Context, string, string) error                { return nil }

// teamFixture serves the real dashboard routes on a fresh database. The
// gateway's edge principal is made from the X-Test-IP header (the
// client's address), as the gateway would vouch for it.
type teamFixture struct {
	t     *testing.T
	pool  *pgxpool.Pool
	srv   *httptest.Server
	clock *clock
	audit *inbox.Consumer
}

const testPassword = "correct horse battery"

func newTeamFixture(t *testing.T) *teamFixture {
	t.Helper()
	pool, _ := pgtest.NewDB(t, migrations.Set(), outbox.Migration(), inbox.Migration())
	keys, err := keyring.Parse("t1:suAAo5uMGR4Aavec0Rcz99MfGYiUbRLFj4vvttr9Y/M=", "t1")
	if err != nil {
		t.Fatal(err)
	}
	c := &clock{t: time.Now().UTC()}
	store := postgres.New(pool, "auth-events", "staff-audit", "org-audit")
	acc := account.NewService(store, c.Now)
	dash := account.NewDashboard(store, acc, openThrottle{}, keys, c.Now, 4, 12*time.Hour)
	bill := billing.NewService(postgres.NewUsage(pool), map[string]billing.PlanPrice{}, c.Now)
	tel, err := telemetry.New(context.Background(), "auth-billing-test")
	if err != nil {
		t.Fatal(err)
	}
	eps := httpapi.MakeEndpoints(acc, bill, kitserver.NewInstrumenter(logging.Discard(), tel.Meter("auth-billing")))
	protect := func(h http.Handler, _ ...principal.Kind) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ip := r.Header.Get("X-Test-IP")
			if ip == "" {
				ip = "192.0.2.1"
			}
			h.ServeHTTP(w, r.WithContext(principal.With(r.Context(), principal.Principal{Kind: principal.KindEdge, ClientIP: ip})))
		})
	}
	mux := http.NewServeMux()
	httpapi.RegisterDashboard(mux, dash, eps, protect, httpapi.DashboardOptions{PublicURL: "https://kyc.example"}, logging.Discard())
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return &teamFixture{t: t, pool: pool, srv: srv, clock: c,
		audit: inbox.New("org-audit", nil, pool, logging.Discard(), inbox.HandlerOf([]inbox.Subscription{events.OrgAuditSubscription()}, "auth-billing.org-audit"))}
}

// member is a browser signed in as one user.
type member struct {
	f     *teamFixture
	http  *http.Client
	csrf  string
	ip    string
	id    string
	email string
}

type answer struct {
	Status int
	Body   []byte
	Header http.Header
}

func (a answer) code() string {
	var env struct {
		Error struct{ Code string }
	}
	_ = json.Unmarshal(a.Body, &env)
	return env.Error.Code
}

func (a answer) decode(t *testing.T, into any) {
	t.Helper()
	var env struct{ Data json.RawMessage }
	if err := json.Unmarshal(a.Body, &env); err != nil {
		t.Fatalf("%s: %v", a.Body, err)
	}
	if err := json.Unmarshal(env.Data, into); err != nil {
		t.Fatalf("%s: %v", env.Data, err)
	}
}

var ips atomic.Int64

func (f *teamFixture) browser() *member {
	jar, _ := cookiejar.New(nil)
	return &member{f: f, http: &http.Client{Jar: jar}, ip: fmt.Sprintf("198.51.100.%d", ips.Add(1)%250+1)}
}

func (m *member) call(method, path string, body any) answer {
	m.f.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, m.f.srv.URL+path, rd)
	if err != nil {
		m.f.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if m.csrf != "" {
		req.Header.Set(httpapi.CSRFHeader, m.csrf)
	}
	req.Header.Set("X-Test-IP", m.ip)
	res, err := m.http.Do(req)
	if err != nil {
		m.f.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return answer{Status: res.StatusCode, Body: b, Header: res.Header}
}

type loginView struct {
	CSRFToken string `json:"csrfToken"`
	Role      string `json:"role"`
	User      struct {
		ID, Email, Name, Role string
	} `json:"user"`
	Organization struct{ ID, Name string } `json:"organization"`
}

func (m *member) signedIn(a answer, want int) loginView {
	m.f.t.Helper()
	if a.Status != want {
		m.f.t.Fatalf("sign-in: %d %s", a.Status, a.Body)
	}
	var l loginView
	a.decode(m.f.t, &l)
	m.csrf, m.id, m.email = l.CSRFToken, l.User.ID, l.User.Email
	return l
}

var emails atomic.Int64

func newEmail(who string) string { return fmt.Sprintf("%s%d@lender.example", who, emails.Add(1)) }

// owner signs up a new organization.
func (f *teamFixture) owner() *member {
	m := f.browser()
	m.signedIn(m.call("POST", "/dashboard/v1/signup", map[string]any{"organizationName": "Acme Lending", "email": newEmail("owner"), "password": testPassword}), http.StatusCreated)
	return m
}

// invite makes an invitation as m and returns its token (from the link).
func (m *member) invite(email, role string) (string, answer) {
	m.f.t.Helper()
	a := m.call("POST", "/dashboard/v1/invitations", map[string]any{"email": email, "role": role})
	if a.Status != http.StatusCreated {
		return "", a
	}
	var v struct {
		Invitation struct{ ID, Email, Role string }
		Link       string
	}
	a.decode(m.f.t, &v)
	prefix := "https://kyc.example/dashboard/#invite="
	if !strings.HasPrefix(v.Link, prefix) {
		m.f.t.Fatalf("link %q", v.Link)
	}
	tok, err := url.QueryUnescape(strings.TrimPrefix(v.Link, prefix))
	if err != nil {
		m.f.t.Fatal(err)
	}
	return tok, a
}

// join invites a new member with role as m, and accepts as them.
func (m *member) join(role string) *member {
	m.f.t.Helper()
	tok, a := m.invite(newEmail(role), role)
	if tok == "" {
		m.f.t.Fatalf("invite %s: %d %s", role, a.Status, a.Body)
	}
	n := m.f.browser()
	l := n.signedIn(n.call("POST", "/dashboard/v1/invitations/accept", map[string]any{"token": tok, "name": "Member " + role, "password": testPassword}), http.StatusCreated)
	if l.Role != role || l.User.Role != role {
		m.f.t.Fatalf("joined as %q/%q, want %s", l.Role, l.User.Role, role)
	}
	return n
}

// consumeAudit feeds every org-audit event in the outbox to the audit
// consumer, as the relay and Kafka would, and returns them.
func (f *teamFixture) consumeAudit() []event.Event {
	f.t.Helper()
	ctx := context.Background()
	rows, err := f.pool.Query(ctx, `SELECT payload FROM outbox WHERE topic = 'org-audit' ORDER BY id`)
	if err != nil {
		f.t.Fatal(err)
	}
	var evs []event.Event
	for rows.Next() {
		var raw []byte
		if err := rows.Scan(&raw); err != nil {
			f.t.Fatal(err)
		}
		e, err := event.Decode(raw)
		if err != nil {
			f.t.Fatal(err)
		}
		evs = append(evs, e)
	}
	rows.Close()
	for _, e := range evs {
		if err := f.audit.Apply(ctx, e); err != nil {
			f.t.Fatal(err)
		}
	}
	return evs
}
