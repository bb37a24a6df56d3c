package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kycfield/kyc/pkg/envelope"
	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/pkg/keyring"
	"github.com/kycfield/kyc/pkg/kitserver"
	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/pkg/orgaudit"
	"github.com/kycfield/kyc/pkg/orgaudit/orgaudittest"
	"github.com/kycfield/kyc/pkg/outbox"
	"github.com/kycfield/kyc/pkg/pgtest"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/pkg/telemetry"
	"github.com/kycfield/kyc/services/customer/internal/customer"
	"github.com/kycfield/kyc/services/customer/internal/events"
	"github.com/kycfield/kyc/services/customer/internal/postgres"
	"github.com/kycfield/kyc/services/customer/migrations"
)

const auditTopic = "t1.org-audit"

// auditService is the customer service's real routes, service and
// repository on a fresh database; each request acts as the principal the
// test puts in its context, as the gateway would vouch for it.
type auditService struct {
	mux  *http.ServeMux
	pool *pgxpool.Pool
	svc  *customer.Service
}

func startAudited(t *testing.T) auditService {
	t.Helper()
	pool, _ := pgtest.NewDB(t, migrations.Set(), outbox.Migration(), inbox.Migration())
	keys, err := keyring.Parse("k1:jSv7ih3Y8m8Zgui3cFjZHBJZGwcPPrL1k2W8ntQftE0=", "k1")
	if err != nil {
		t.Fatal(err)
	}
	tel, err := telemetry.New(context.Background(), "customer-test")
	if err != nil {
		t.Fatal(err)
	}
	store := postgres.New(pool, keys, "t1.customer-events", events.Of)
	store.AuditOn(auditTopic)
	svc := customer.NewService(store, time.Now).WithImports(store)
	mux := http.NewServeMux()
	protect := func(h http.Handler, _ ...principal.Kind) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			p := r.Context().Value(actorKey{}).(principal.Principal)
			h.ServeHTTP(w, r.WithContext(principal.With(r.Context(), p)))
		})
	}
	Register(mux, MakeEndpoints(svc, kitserver.NewInstrumenter(logging.Discard(), tel.Meter("customer"))), svc, protect, logging.Discard())
	return auditService{mux: mux, pool: pool, svc: svc}
}

type actorKey struct{}

var (
	member = principal.Principal{Kind: principal.KindAPIKey, OrgID: "org_audit", Env: principal.EnvTest, UserID: "usr_ada",
		MemberRole: principal.MemberDeveloper, ClientIP: "203.0.113.7", Scopes: []string{principal.ScopeRead, principal.ScopeWrite}}
	apiKey = principal.Principal{Kind: principal.KindAPIKey, OrgID: "org_audit", Env: principal.EnvTest, KeyID: "key_backend",
		ClientIP: "198.51.100.4", Scopes: []string{principal.ScopeRead, principal.ScopeWrite}}
)

// call sends a request as p and returns the status and the envelope's data.
func (s auditService) call(t *testing.T, p principal.Principal, method, path, ctype string, body []byte) (int, json.RawMessage) {
	t.Helper()
	r := httptest.NewRequest(method, path, bytes.NewReader(body))
	if ctype != "" {
		r.Header.Set("Content-Type", ctype)
	}
	r = r.WithContext(context.WithValue(r.Context(), actorKey{}, p))
	w := httptest.NewRecorder()
	s.mux.ServeHTTP(w, r)
	var env envelope.Response
	_ = json.Unmarshal(w.Body.Bytes(), &env)
	return w.Code, env.Data
}

func idOf(t *testing.T, data json.RawMessage) string {
	t.Helper()
	var v struct{ ID string }
	if err := json.Unmarshal(data, &v); err != nil || v.ID == "" {
		t.Fatalf("no id in %s", data)
	}
	return v.ID
}

// want is the expected action by p.
func want(p principal.Principal, action, target string) orgaudittest.Want {
	w := orgaudittest.Want{Topic: auditTopic, OrgID: p.OrgID, Env: string(p.Env), Action: action, Target: target, IP: p.ClientIP}
	if p.UserID != "" {
		w.ActorType, w.ActorID, w.MemberRole = orgaudit.ActorUser, p.UserID, string(p.MemberRole)
	} else {
		w.ActorType, w.ActorID = orgaudit.ActorKey, p.KeyID
	}
	return w
}

const newCustomer = `{"firstName":"Ngozi","lastName":"Okafor","phone":"+2348031230001","bvn":"22212345678",
	"addresses":[{"streetName":"Allen Avenue","city":"Ikeja","state":"Lagos"}]}`

// Every change a member or a key makes to customers is recorded once, in
// the outbox with the change, naming the actor (user and role, or key),
// the action, its target and the IP; a refused change records nothing,
// nor does a change that changes nothing, and no detail carries the BVN.
func TestCustomerChangesAreAudited(t *testing.T) {
	t.Parallel()
	s := startAudited(t)
	n := 0
	step := func(p principal.Principal, action, target string) orgaudittest.Recorded {
		t.Helper()
		got := orgaudittest.Since(t, s.pool, n)
		n += len(got)
		return orgaudittest.One(t, got, want(p, action, target))
	}
	none := func(what string) {
		t.Helper()
		if got := orgaudittest.Since(t, s.pool, n); len(got) != 0 {
			t.Errorf("%s recorded %d actions: %+v", what, len(got), got)
			n += len(got)
		}
	}

	code, data := s.call(t, member, "POST", "/api/v1/customers", "application/json", []byte(newCustomer))
	if code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, data)
	}
	id := idOf(t, data)
	r := step(member, customer.ActionCreate, id)
	if strings.Contains(string(r.Event.Data), "22212345678") {
		t.Errorf("the audit carries the BVN: %s", r.Event.Data)
	}

	if code, _ := s.call(t, member, "POST", "/api/v1/customers", "application/json", []byte(`{"firstName":"Ngozi"}`)); code != http.StatusBadRequest {
		t.Fatalf("invalid create: %d", code)
	}
	none("an invalid create")
	if code, _ := s.call(t, apiKey, "POST", "/api/v1/customers", "application/json", []byte(newCustomer)); code != http.StatusBadRequest {
		t.Fatalf("duplicate create: %d", code)
	}
	none("a duplicate create")

	if code, data := s.call(t, apiKey, "PUT", "/api/v1/customers/"+id, "application/json", []byte(`{"occupation":"Trader"}`)); code != http.StatusOK {
		t.Fatalf("update: %d %s", code, data)
	}
	r = step(apiKey, customer.ActionUpdate, id)
	if f, _ := r.Details["fields"].([]any); len(f) != 1 || f[0] != "occupation" {
		t.Errorf("update details: %v", r.Details)
	}
	if code, _ := s.call(t, apiKey, "PUT", "/api/v1/customers/"+id, "application/json", []byte(`{"occupation":"Trader"}`)); code != http.StatusOK {
		t.Fatalf("same update: %d", code)
	}
	none("an update that changes nothing")
	if code, _ := s.call(t, apiKey, "PUT", "/api/v1/customers/"+id, "application/json", []byte(`{"email":"not-an-email"}`)); code != http.StatusBadRequest {
		t.Fatalf("invalid update: %d", code)
	}
	none("an invalid update")

	code, data = s.call(t, member, "POST", "/api/v1/customers/"+id+"/addresses", "application/json",
		[]byte(`{"streetName":"Awolowo Road","city":"Ikoyi","state":"Lagos"}`))
	if code != http.StatusCreated && code != http.StatusOK {
		t.Fatalf("add address: %d %s", code, data)
	}
	r = step(member, customer.ActionAddressAdd, "")
	if !strings.HasPrefix(r.Target, "adr_") || r.Details["customerId"] != id {
		t.Errorf("address.add: target %q, details %v", r.Target, r.Details)
	}

	if code, _ := s.call(t, member, "DELETE", "/api/v1/customers/cus_019a2b3c4d5e6f708192a3b4c5d6e7f8", "", nil); code != http.StatusNotFound {
		t.Fatalf("delete unknown: %d", code)
	}
	none("deleting an unknown customer")
	if code, data := s.call(t, member, "DELETE", "/api/v1/customers/"+id, "", nil); code != http.StatusOK && code != http.StatusNoContent {
		t.Fatalf("delete: %d %s", code, data)
	}
	step(member, customer.ActionDelete, id)

	// Each audit went out in the transaction of its change: the customer
	// events and the actions alternate in the outbox.
	var kinds []string
	rows, err := s.pool.Query(context.Background(), `SELECT topic FROM outbox ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var topic string
		_ = rows.Scan(&topic)
		kinds = append(kinds, topic)
	}
	if got := strings.Join(kinds, " "); got != strings.TrimSpace(strings.Repeat("t1.customer-events "+auditTopic+" ", 4)) {
		t.Errorf("outbox topics in order: %s", got)
	}
}

func csvUpload(t *testing.T, name, content string) (string, []byte) {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	fw, err := mw.CreateFormFile("file", name)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = fw.Write([]byte(content))
	_ = mw.Close()
	return mw.FormDataContentType(), b.Bytes()
}

// An upload is import.create and a start import.start, once each: the
// same file again, a second start and the rows the job creates are not
// new actions.
func TestImportsAreAuditedOnce(t *testing.T) {
	t.Parallel()
	s := startAudited(t)
	file := "firstName,lastName,phone,address1_streetName,address1_city,address1_state\n" +
		"Ngozi,Okafor,+2348031230001,Allen Avenue,Ikeja,Lagos\nAda,Obi,+2348031230002,Allen Avenue,Ikeja,Lagos\nBad,,x,,,\n"
	ctype, body := csvUpload(t, "batch.csv", file)
	code, data := s.call(t, member, "POST", "/api/v1/imports", ctype, body)
	if code != http.StatusCreated {
		t.Fatalf("upload: %d %s", code, data)
	}
	id := idOf(t, data)
	r := orgaudittest.One(t, orgaudittest.Actions(t, s.pool), want(member, customer.ActionImportCreate, id))
	if r.Details["fileName"] != "batch.csv" || r.Details["validRows"] != float64(2) || r.Details["totalRows"] != float64(3) {
		t.Errorf("import.create details: %v", r.Details)
	}
	ctype, body = csvUpload(t, "again.csv", file)
	if code, _ := s.call(t, apiKey, "POST", "/api/v1/imports", ctype, body); code != http.StatusOK {
		t.Fatalf("same file again: %d", code)
	}
	if code, _ := s.call(t, apiKey, "POST", "/api/v1/imports/"+id+"/start", "application/json", []byte(`{"rows":3}`)); code != http.StatusUnprocessableEntity {
		t.Fatalf("start with the wrong count: %d", code)
	}
	if got := orgaudittest.Actions(t, s.pool); len(got) != 1 {
		t.Fatalf("a re-upload or a refused start was recorded: %+v", got)
	}
	if code, data := s.call(t, apiKey, "POST", "/api/v1/imports/"+id+"/start", "application/json", []byte(`{"rows":2}`)); code != http.StatusAccepted {
		t.Fatalf("start: %d %s", code, data)
	}
	orgaudittest.One(t, orgaudittest.Since(t, s.pool, 1), want(apiKey, customer.ActionImportStart, id))
	if code, _ := s.call(t, apiKey, "POST", "/api/v1/imports/"+id+"/start", "application/json", []byte(`{"rows":2}`)); code != http.StatusOK {
		t.Fatalf("second start: %d", code)
	}
	// The job's rows, created by the worker (no caller), are not actions.
	if n, err := s.svc.CreateImportRows(context.Background()); err != nil || n != 2 {
		t.Fatalf("creating the rows: %d %v", n, err)
	}
	if got := orgaudittest.Since(t, s.pool, 2); len(got) != 0 {
		t.Errorf("a second start or the job's rows were recorded: %+v", got)
	}
	var created int
	if err := s.pool.QueryRow(context.Background(), `SELECT count(*) FROM outbox WHERE event_type = $1`, customer.EventCreated).Scan(&created); err != nil || created != 2 {
		t.Fatalf("customer.created events: %d %v", created, err)
	}
}

// A change whose caller is neither a member nor a key (no actor to name)
// does not happen: an unaudited change must not slip through.
func TestAChangeWithoutAnActorIsRefused(t *testing.T) {
	t.Parallel()
	s := startAudited(t)
	anonymous := principal.Principal{Kind: principal.KindAPIKey, OrgID: "org_audit", Env: principal.EnvTest}
	if code, _ := s.call(t, anonymous, "POST", "/api/v1/customers", "application/json", []byte(newCustomer)); code != http.StatusInternalServerError {
		t.Fatalf("create without an actor: %d", code)
	}
	var n int
	if err := s.pool.QueryRow(context.Background(), `SELECT count(*) FROM customers`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("customers: %d %v", n, err)
	}
}
