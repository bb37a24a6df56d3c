package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/jpeg"
	"io"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/kycfield/kyc/pkg/envelope"
	"github.com/kycfield/kyc/pkg/ids"
	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/pkg/kitserver"
	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/pkg/miniotest"
	"github.com/kycfield/kyc/pkg/objstore"
	"github.com/kycfield/kyc/pkg/objstore/pending"
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

const adminToken = "test-admin-token"

// fixture serves the real routes on a fresh database and bucket, behind
// the real principal check: requests carry a principal signed with the
// fixture's signer, as the gateway's would be.
type fixture struct {
	mux    *http.ServeMux
	svc    *verification.Service
	store  *postgres.Store
	signer *principal.Signer
	photos objstore.Bucket
	clock  *clock
}

// clock is the service's clock: the real time, moved on by Advance, so
// that a test can make a visit last minutes without waiting.
type clock struct {
	mu     sync.Mutex
	offset time.Duration
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.offset)
}

// Advance moves the service's clock on by d.
func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.offset += d
	c.mu.Unlock()
}

func setup(t *testing.T) fixture {
	t.Helper()
	pool, _ := pgtest.NewDB(t, migrations.Set(), outbox.Migration(), inbox.Migration(), pending.Migration())
	render := view.Renderer{BaseURL: "https://api.example.com"}
	store := postgres.New(pool, "verification-events", events.Publisher{View: render}.Of)
	clk := &clock{}
	svc := verification.NewService(store, clk.now, verification.Sandbox{})
	mc, name := miniotest.NewBucket(t)
	photos := objstore.Bucket{Client: mc, Name: name}
	signer, err := principal.NewSigner([]string{"a-test-secret-of-enough-bytes"}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	tel, err := telemetry.New(context.Background(), "verification-test")
	if err != nil {
		t.Fatal(err)
	}
	eps := httpapi.MakeEndpoints(svc, render, photos, kitserver.NewInstrumenter(logging.Discard(), tel.Meter("verification")))
	protect := func(h http.Handler, kinds ...principal.Kind) http.Handler {
		return principal.Require(signer, logging.Discard(), kinds...)(h)
	}
	mux := http.NewServeMux()
	httpapi.Register(mux, eps, svc, photos, protect, logging.Discard())
	httpapi.RegisterAdmin(mux, eps.Admin, adminToken, logging.Discard())
	httpapi.RegisterReviews(mux, eps.Reviews, svc, photos, protect, adminToken, logging.Discard())
	return fixture{mux: mux, svc: svc, store: store, signer: signer, photos: photos, clock: clk}
}

// request is one call; zero fields are left out.
type request struct {
	method, path string
	kind         principal.Kind       // the signed principal's kind; none when empty
	staff        *principal.Principal // a signed staff principal (kind is then ignored)
	admin        string               // the admin bearer token
	agent        string               // the agent session token
	idem         string               // Idempotency-Key
	ctype        string               // Content-Type (application/json for a JSON body)
	body         any                  // JSON-encoded unless a string or an io.Reader
}

type response struct {
	status int
	header http.Header
	env    envelope.Response
	body   []byte
}

func (r response) code() string {
	if r.env.Error == nil {
		return ""
	}
	return r.env.Error.Code
}

// data decodes the envelope's data into v.
func (r response) data(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.env.Data, v); err != nil {
		t.Fatalf("data %s: %v", r.body, err)
	}
}

func (f fixture) do(t *testing.T, q request) response {
	t.Helper()
	var body io.Reader
	switch b := q.body.(type) {
	case nil:
	case io.Reader:
		body = b
	case string:
		body = bytes.NewReader([]byte(b))
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		body = bytes.NewReader(raw)
	}
	r := httptest.NewRequest(q.method, q.path, body)
	switch {
	case q.staff != nil:
		r.Header.Set(principal.Header, f.signer.Sign(*q.staff, q.method, r.URL.EscapedPath()))
	case q.kind != "":
		p := principal.Principal{Kind: q.kind, OrgID: "org_test", Env: principal.EnvLive}
		r.Header.Set(principal.Header, f.signer.Sign(p, q.method, r.URL.EscapedPath()))
	}
	set := map[string]string{"Idempotency-Key": q.idem, principal.AgentTokenHeader: q.agent, "Content-Type": q.ctype}
	if q.admin != "" {
		set["Authorization"] = "Bearer " + q.admin
	}
	if q.ctype == "" && q.body != nil {
		set["Content-Type"] = "application/json"
	}
	for k, v := range set {
		if v != "" {
			r.Header.Set(k, v)
		}
	}
	rec := httptest.NewRecorder()
	f.mux.ServeHTTP(rec, r)
	out := response{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
	if ct := rec.Header().Get("Content-Type"); ct == "application/json" || ct == "application/json; charset=utf-8" {
		if err := json.Unmarshal(out.body, &out.env); err != nil {
			t.Fatalf("%s %s: body %q: %v", q.method, q.path, out.body, err)
		}
	}
	return out
}

// field is the first field a validation error names.
func (r response) field() string {
	if r.env.Error == nil || len(r.env.Error.Details) == 0 {
		return ""
	}
	return r.env.Error.Details[0].Field
}

// expect fails unless r has status and error code (none for success).
func expect(t *testing.T, what string, r response, status int, code string) {
	t.Helper()
	if r.status != status || r.code() != code {
		t.Fatalf("%s: got %d %q, want %d %q: %s", what, r.status, r.code(), status, code, r.body)
	}
}

// admin calls operations' API with the right token.
func (f fixture) admin(t *testing.T, method, path string, body any) response {
	t.Helper()
	return f.do(t, request{method: method, path: path, admin: adminToken, body: body})
}

// phone is a fresh Nigerian mobile number.
func phone() string { return fmt.Sprintf("+23480%08d", rand.IntN(100_000_000)) }

// agent is a signed-in field agent.
type agent struct{ id, token string }

// agentWithCode creates an agent covering states through the admin API
// and issues it a one-time code.
func (f fixture) agentWithCode(t *testing.T, states ...string) (id, ph, code string) {
	t.Helper()
	ph = phone()
	r := f.admin(t, "POST", "/admin/v1/agents", map[string]any{"name": "Adé Bello", "phone": ph, "states": states})
	expect(t, "create agent", r, http.StatusCreated, "")
	var a httpapi.Agent
	r.data(t, &a)
	r = f.admin(t, "POST", "/admin/v1/agents/"+a.ID+"/code", nil)
	expect(t, "issue code", r, http.StatusCreated, "")
	var c struct{ Code string }
	r.data(t, &c)
	return a.ID, ph, c.Code
}

// newAgent creates an agent covering states and signs it in.
func (f fixture) newAgent(t *testing.T, states ...string) agent {
	t.Helper()
	id, ph, code := f.agentWithCode(t, states...)
	r := f.do(t, request{method: "POST", path: "/agent/v1/session", kind: principal.KindEdge, body: map[string]string{"phone": ph, "code": code}})
	expect(t, "sign in", r, http.StatusCreated, "")
	var s struct{ Token string }
	r.data(t, &s)
	return agent{id: id, token: s.Token}
}

// call is the agent's request through the gateway: an edge principal and
// its session token.
func (a agent) call(method, path, idem string, body any) request {
	return request{method: method, path: path, kind: principal.KindEdge, agent: a.token, idem: idem, body: body}
}

// openLive starts verifying a live customer with one address in state, as
// the customer-events consumer does, and returns the address id.
func (f fixture) openLive(t *testing.T, state string) string {
	t.Helper()
	return f.openLiveIn(t, ids.New("org"), state)
}

// openLiveIn is openLive for a customer of the organization orgID.
func (f fixture) openLiveIn(t *testing.T, orgID, state string) string {
	t.Helper()
	adr := ids.New("adr")
	in := verification.CaseInput{CustomerID: ids.New("cus"), OrgID: orgID, Env: verification.EnvLive, FirstName: "Ngozi",
		LastName: "Okafor", Phone: "+2348031234567", LoanType: "PERSONAL", At: time.Now().Add(-time.Minute),
		Addresses: []verification.AddressInput{{ID: adr, Address: verification.Address{StreetNumber: "12",
			StreetName: "Adeola Odeku Street", City: "Victoria Island", State: state, Country: "Nigeria"}}}}
	ctx := context.Background()
	if err := f.store.Atomic(ctx, func(tx verification.Tx) error { return f.svc.Open(ctx, tx, in) }); err != nil {
		t.Fatal(err)
	}
	return adr
}

// jpegBytes is a small real JPEG.
func jpegBytes(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, image.NewRGBA(image.Rect(0, 0, 64, 48)), nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// photoForm is a multipart photo upload: fields in order, then the file
// when it is not nil.
func photoForm(t *testing.T, file []byte, fields ...string) (io.Reader, string) {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for i := 0; i+1 < len(fields); i += 2 {
		if err := w.WriteField(fields[i], fields[i+1]); err != nil {
			t.Fatal(err)
		}
	}
	if file != nil {
		fw, err := w.CreateFormFile("file", "photo.jpg")
		if err != nil {
			t.Fatal(err)
		}
		_, _ = fw.Write(file)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return &b, w.FormDataContentType()
}

// upload sends a photo of the task as the agent.
func (f fixture) upload(t *testing.T, a agent, addressID, idem string, file []byte, fields ...string) response {
	t.Helper()
	body, ctype := photoForm(t, file, fields...)
	q := a.call("POST", "/agent/v1/tasks/"+addressID+"/photos", idem, body)
	q.ctype = ctype
	return f.do(t, q)
}
