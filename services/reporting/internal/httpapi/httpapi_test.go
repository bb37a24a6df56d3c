package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kycfield/kyc/pkg/envelope"
	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/ids"
	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/pkg/kitserver"
	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/pkg/miniotest"
	"github.com/kycfield/kyc/pkg/objstore"
	"github.com/kycfield/kyc/pkg/outbox"
	"github.com/kycfield/kyc/pkg/pgtest"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/pkg/telemetry"
	"github.com/kycfield/kyc/services/reporting/internal/events"
	"github.com/kycfield/kyc/services/reporting/internal/httpapi"
	"github.com/kycfield/kyc/services/reporting/internal/pdf"
	"github.com/kycfield/kyc/services/reporting/internal/postgres"
	"github.com/kycfield/kyc/services/reporting/internal/report"
	"github.com/kycfield/kyc/services/reporting/migrations"
)

type fixture struct {
	pool      *pgxpool.Pool
	mux       *http.ServeMux
	svc       *report.Service
	customers *inbox.Consumer
	outcomes  *inbox.Consumer
	documents *inbox.Consumer
	orgs      *inbox.Consumer
}

// setup serves the real routes on a fresh database and bucket; the
// caller's organization and environment come from test headers in place
// of the gateway's signed principal.
func setup(t *testing.T) fixture {
	t.Helper()
	pool, _ := pgtest.NewDB(t, migrations.Set(), inbox.Migration(), outbox.Migration())
	mc, name := miniotest.NewBucket(t)
	links := report.Links{PublicURL: "https://api.example.com"}
	store := postgres.New(pool, "reporting-events", events.Publisher{ReportURL: links.ReportURL}.Of)
	svc := report.NewService(store, objstore.Bucket{Client: mc, Name: name}, pdf.Renderer{}, nil, time.Now, links)
	tel, err := telemetry.New(context.Background(), "reporting-test")
	if err != nil {
		t.Fatal(err)
	}
	eps := httpapi.MakeEndpoints(svc, kitserver.NewInstrumenter(logging.Discard(), tel.Meter("reporting")))
	protect := func(h http.Handler, _ ...principal.Kind) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			p := principal.Principal{Kind: principal.KindAPIKey, OrgID: r.Header.Get("X-Org"), Env: principal.Env(r.Header.Get("X-Env")),
				Plan: r.Header.Get("X-Plan"), KeyID: "key_test", ClientIP: r.Header.Get("X-IP")}
			if u := r.Header.Get("X-User"); u != "" { // a member from the dashboard
				p.KeyID, p.UserID, p.MemberRole = "", u, principal.MemberRole(r.Header.Get("X-Role"))
			}
			h.ServeHTTP(w, r.WithContext(principal.With(r.Context(), p)))
		})
	}
	mux := http.NewServeMux()
	httpapi.Register(mux, eps, svc, protect, logging.Discard())
	subs := events.Subscriptions(svc, store.Within)
	consumer := func(group string) *inbox.Consumer {
		return inbox.New(group, nil, pool, logging.Discard(), inbox.HandlerOf(subs, group))
	}
	return fixture{pool: pool, mux: mux, svc: svc, customers: consumer("reporting.customers"), outcomes: consumer("reporting.outcomes"),
		documents: consumer("reporting.documents"), orgs: consumer("reporting.organizations")}
}

// outcome applies an outcome event and renders what it queued, as the
// consumer and the render worker would.
func (f fixture) outcome(t *testing.T, e event.Event) {
	t.Helper()
	apply(t, f.outcomes, e)
	f.rendered(t)
}

// rendered renders every render that is due, failing on an error.
func (f fixture) rendered(t *testing.T) {
	t.Helper()
	for {
		id, _, err := f.svc.RenderNext(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if id == "" {
			return
		}
	}
}

type tenant struct{ org, env string }

func newTenant(env string) tenant { return tenant{ids.New("org"), env} }

func apply(t *testing.T, c *inbox.Consumer, e event.Event) {
	t.Helper()
	if err := c.Apply(context.Background(), e); err != nil {
		t.Fatal(err)
	}
}

func newEvent(t *testing.T, typ string, who tenant, data any) event.Event {
	t.Helper()
	e, err := event.New(typ, who.org, who.env, data)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// customer makes a customer known as customer.created would, with the
// BVN masked as the customer context sends it.
func (f fixture) customer(t *testing.T, who tenant, typ string) string {
	t.Helper()
	id := ids.New("cus")
	f.customerEvent(t, who, typ, id)
	return id
}

func (f fixture) customerEvent(t *testing.T, who tenant, typ, id string) {
	t.Helper()
	apply(t, f.customers, newEvent(t, typ, who, map[string]any{"customerId": id, "customer": map[string]any{
		"id": id, "firstName": "Chụkwụemeka", "lastName": "Ọkọrọ", "phone": "+2348031234567", "email": "chukwuemeka@example.com",
		"occupation": "Engineer", "bvn": "***5678", "nin": nil, "passportNumber": "A01234567", "loanId": "LN-7", "loanType": "PERSONAL"}}))
}

// outcome is verification.completed (or .rejected) for the customer.
func outcome(t *testing.T, who tenant, id, status string) event.Event {
	t.Helper()
	at := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	lat, lng := 6.4281, 3.4219
	o := report.Outcome{CustomerID: id, CustomerName: "Chụkwụemeka Ọkọrọ", OverallStatus: status, VerificationDate: &at,
		Addresses: []report.Address{{ID: ids.New("adr"), StreetName: "Adeola Odeku Street", City: "Victoria Island", State: "Lagos",
			Country: "Nigeria", Status: status, VerificationData: &report.VerificationData{VerifiedAddress: "12 Adeola Odeku Street",
				VerifiedAt: &at, VerifiedLatitude: &lat, VerifiedLongitude: &lng, AgentNotes: "Met the customer."}}},
		Documents: []report.Document{}}
	typ := events.TypeVerificationCompleted
	if status == report.Rejected {
		typ = events.TypeVerificationRejected
	}
	return newEvent(t, typ, who, o)
}

// documentAdded is document.added for a document of the customer.
func documentAdded(t *testing.T, who tenant, id, typ, name string) event.Event {
	t.Helper()
	docID := ids.New("doc")
	return newEvent(t, events.TypeDocumentAdded, who, map[string]any{"customerId": id, "document": map[string]any{
		"id": docID, "customerId": id, "documentType": typ, "fileName": name, "fileType": "application/pdf", "fileSize": 1234,
		"fileUrl": "https://api.example.com/api/v1/customers/" + id + "/documents/" + docID + "/file", "verified": false,
		"hosted": true, "uploadedAt": "2026-11-24T09:00:00.000Z"}})
}

// due makes every queued render due now, as time passing would.
func (f fixture) due(t *testing.T) {
	t.Helper()
	if _, err := f.pool.Exec(context.Background(), `UPDATE renders SET not_before = now()`); err != nil {
		t.Fatal(err)
	}
}

type response struct {
	status int
	header http.Header
	body   []byte
	env    envelope.Response
}

func (r response) code() string {
	if r.env.Error == nil {
		return ""
	}
	return r.env.Error.Code
}

func (f fixture) get(t *testing.T, who tenant, path string, header ...string) response {
	t.Helper()
	return f.do(t, who, "GET", path, "", header...)
}

func (f fixture) do(t *testing.T, who tenant, method, path, body string, header ...string) response {
	t.Helper()
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	if body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	r.Header.Set("X-Org", who.org)
	r.Header.Set("X-Env", who.env)
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	f.mux.ServeHTTP(w, r)
	res := response{status: w.Code, header: w.Header(), body: w.Body.Bytes()}
	if strings.HasPrefix(w.Header().Get("Content-Type"), "application/json") {
		_ = json.Unmarshal(res.body, &res.env)
	}
	return res
}

func (f fixture) report(t *testing.T, who tenant, id string, header ...string) response {
	t.Helper()
	return f.get(t, who, "/api/v1/customers/"+id+"/report", header...)
}

func (f fixture) count(t *testing.T, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := f.pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
