package httpapi_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/envelope"
	"github.com/kycfield/kyc/pkg/event"
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
	"github.com/kycfield/kyc/services/document/internal/document"
	"github.com/kycfield/kyc/services/document/internal/events"
	"github.com/kycfield/kyc/services/document/internal/httpapi"
	"github.com/kycfield/kyc/services/document/internal/postgres"
	"github.com/kycfield/kyc/services/document/migrations"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

type fixture struct {
	pool  *pgxpool.Pool
	mux   *http.ServeMux
	inbox *inbox.Consumer
}

// setup serves the real routes on a fresh database and bucket; the
// caller's organization and environment come from test headers in place
// of the gateway's signed principal.
func setup(t *testing.T, files document.Files) fixture {
	t.Helper()
	pool, _ := pgtest.NewDB(t, migrations.Set(), inbox.Migration(), outbox.Migration(), pending.Migration())
	return serve(t, pool, files)
}

// serve builds the routes on pool and files (a fresh bucket when nil).
func serve(t *testing.T, pool *pgxpool.Pool, files document.Files) fixture {
	t.Helper()
	if files == nil {
		mc, name := miniotest.NewBucket(t)
		files = objstore.Bucket{Client: mc, Name: name}
	}
	v := httpapi.View{BaseURL: "https://api.example.com"}
	store := postgres.New(pool, "document-events", events.Publisher{View: v}.Of)
	svc := document.NewService(store, files, time.Now)
	tel, err := telemetry.New(context.Background(), "document-test")
	if err != nil {
		t.Fatal(err)
	}
	eps := httpapi.MakeEndpoints(svc, v, kitserver.NewInstrumenter(logging.Discard(), tel.Meter("document")))
	protect := func(h http.Handler, _ ...principal.Kind) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			p := principal.Principal{Kind: principal.KindAPIKey, OrgID: r.Header.Get("X-Org"), Env: principal.Env(r.Header.Get("X-Env")),
				Scopes: []string{principal.ScopeRead, principal.ScopeWrite}, KeyID: "key_test", ClientIP: r.Header.Get("X-IP")}
			if u := r.Header.Get("X-User"); u != "" { // a member from the dashboard
				p.KeyID, p.UserID, p.MemberRole = "", u, principal.MemberRole(r.Header.Get("X-Role"))
			}
			if s := r.Header.Get("X-Scopes"); s != "" {
				p.Scopes = strings.Split(s, ",")
			}
			h.ServeHTTP(w, r.WithContext(principal.With(r.Context(), p)))
		})
	}
	mux := http.NewServeMux()
	httpapi.Register(mux, eps, svc, v, httpapi.Uploads{Dir: t.TempDir()}, protect, logging.Discard())
	return fixture{mux: mux, pool: pool, inbox: inbox.New("document.customers", nil, pool, logging.Discard(), inbox.HandlerOf(events.Subscriptions(svc, store.Within), "document.customers"))}
}

type tenant struct{ org, env string }

func newTenant(env string) tenant { return tenant{ids.New("org"), env} }

// customer makes a customer known through the consumer, as the customer
// context's customer.created would.
func (f fixture) customer(t *testing.T, who tenant) string {
	t.Helper()
	id := ids.New("cus")
	f.event(t, who, events.TypeCustomerCreated, id)
	return id
}

func (f fixture) event(t *testing.T, who tenant, typ, customerID string) {
	t.Helper()
	e, err := event.New(typ, who.org, who.env, map[string]any{"customerId": customerID, "customer": map[string]any{"id": customerID}})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.inbox.Apply(context.Background(), e); err != nil {
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

func (r response) doc(t *testing.T) httpapi.Document {
	t.Helper()
	var d httpapi.Document
	b, _ := json.Marshal(r.env.Data)
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

func (f fixture) do(t *testing.T, who tenant, method, path, ctype string, body io.Reader) response {
	t.Helper()
	r := httptest.NewRequest(method, path, body)
	r.Header.Set("X-Org", who.org)
	r.Header.Set("X-Env", who.env)
	if ctype != "" {
		r.Header.Set("Content-Type", ctype)
	}
	w := httptest.NewRecorder()
	f.mux.ServeHTTP(w, r)
	res := response{status: w.Code, header: w.Header(), body: w.Body.Bytes()}
	if strings.HasPrefix(w.Header().Get("Content-Type"), "application/json") {
		_ = json.Unmarshal(res.body, &res.env)
	}
	return res
}

func (f fixture) link(t *testing.T, who tenant, customerID, body string) response {
	return f.do(t, who, "POST", "/api/v1/customers/"+customerID+"/documents", "application/json", strings.NewReader(body))
}

// part is one multipart part; a file part has a file name.
type part struct{ name, file, value string }

func form(parts ...part) (string, *bytes.Buffer) {
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for _, p := range parts {
		if p.file != "" {
			w, _ := mw.CreateFormFile(p.name, p.file)
			_, _ = w.Write([]byte(p.value))
		} else {
			_ = mw.WriteField(p.name, p.value)
		}
	}
	_ = mw.Close()
	return mw.FormDataContentType(), &b
}

func (f fixture) upload(t *testing.T, who tenant, customerID string, parts ...part) response {
	ct, b := form(parts...)
	return f.do(t, who, "POST", "/api/v1/customers/"+customerID+"/documents", ct, b)
}

const linkBody = `{"fileName":"id.jpg","fileUrl":"https://files.example.com/id.jpg","fileType":"image/jpeg","fileSize":2048,"documentType":"ID_CARD"}`

func pngBytes(t *testing.T, w, h int) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 7)
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestJSONFormAddsAndListsALink(t *testing.T) {
	f := setup(t, nil)
	who := newTenant("live")
	cus := f.customer(t, who)
	r := f.link(t, who, cus, linkBody)
	if r.status != http.StatusCreated {
		t.Fatalf("%d %s", r.status, r.body)
	}
	d := r.doc(t)
	if !strings.HasPrefix(d.ID, "doc_") || d.Verified || d.Hosted || d.UploadedAt == nil || d.FileURL != "https://files.example.com/id.jpg" ||
		d.FileSize != 2048 || d.DocumentType != "ID_CARD" || d.FileType != "image/jpeg" || d.FileName != "id.jpg" {
		t.Fatalf("document %+v", d)
	}
	l := f.do(t, who, "GET", "/api/v1/customers/"+cus+"/documents", "", nil)
	if l.status != http.StatusOK || !strings.Contains(string(l.body), d.ID) {
		t.Fatalf("list %d %s", l.status, l.body)
	}
	// A link is not hosted here: there is no file to download.
	if g := f.do(t, who, "GET", "/api/v1/customers/"+cus+"/documents/"+d.ID+"/file", "", nil); g.status != http.StatusNotFound {
		t.Fatalf("file of a link: %d", g.status)
	}
}

func TestJSONFormRefusals(t *testing.T) {
	f := setup(t, nil)
	live, sandbox := newTenant("live"), newTenant("test")
	cus, scus := f.customer(t, live), f.customer(t, sandbox)
	cases := []struct {
		name  string
		who   tenant
		cus   string
		ctype string
		body  string
		code  string
		field string
	}{
		{"http in live", live, cus, "application/json", strings.Replace(linkBody, "https:", "http:", 1), apperr.CodeValidation, "fileUrl"},
		{"private host", live, cus, "application/json", strings.Replace(linkBody, "files.example.com", "192.168.1.10", 1), apperr.CodeValidation, "fileUrl"},
		{"missing documentType", live, cus, "application/json", strings.Replace(linkBody, `,"documentType":"ID_CARD"`, "", 1), apperr.CodeValidation, "documentType"},
		{"unknown member", live, cus, "application/json", strings.Replace(linkBody, "{", `{"owner":"x",`, 1), apperr.CodeValidation, "owner"},
		{"size as string", live, cus, "application/json", strings.Replace(linkBody, "2048", `"2048"`, 1), apperr.CodeValidation, "fileSize"},
		{"malformed", live, cus, "application/json", `{"fileName":`, apperr.CodeInvalidJSON, ""},
		{"text body", live, cus, "text/plain", linkBody, apperr.CodeUnsupportedMedia, ""},
		{"unknown customer", live, ids.New("cus"), "application/json", linkBody, apperr.CodeNotFound, ""},
		{"sandbox customer from live", live, scus, "application/json", linkBody, apperr.CodeNotFound, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := f.link(t, c.who, c.cus, c.body)
			if c.ctype != "application/json" {
				r = f.do(t, c.who, "POST", "/api/v1/customers/"+c.cus+"/documents", c.ctype, strings.NewReader(c.body))
			}
			if r.code() != c.code {
				t.Fatalf("%d %s, want %s", r.status, r.body, c.code)
			}
			if c.field != "" && (len(r.env.Error.Details) == 0 || r.env.Error.Details[0].Field != c.field) {
				t.Fatalf("details %+v, want field %s", r.env.Error.Details, c.field)
			}
		})
	}
	// Sandbox accepts http links.
	if r := f.link(t, sandbox, scus, strings.Replace(linkBody, "https:", "http:", 1)); r.status != http.StatusCreated {
		t.Fatalf("sandbox http: %d %s", r.status, r.body)
	}
}

func TestUploadIsStoredAndServedToItsTenantOnly(t *testing.T) {
	f := setup(t, nil)
	who := newTenant("test")
	cus := f.customer(t, who)
	raw := pngBytes(t, 64, 48)
	// documentType after the file: either order is fine.
	r := f.upload(t, who, cus, part{name: "file", file: "contract.pdf", value: string(raw)}, part{name: "documentType", value: "UTILITY_BILL"})
	if r.status != http.StatusCreated {
		t.Fatalf("%d %s", r.status, r.body)
	}
	d := r.doc(t)
	if !d.Hosted || d.FileType != "image/png" || d.DocumentType != "UTILITY_BILL" || d.FileName != "contract.pdf" || d.OriginalSize == nil ||
		*d.OriginalSize != int64(len(raw)) || d.FileURL != "https://api.example.com/api/v1/customers/"+cus+"/documents/"+d.ID+"/file" {
		t.Fatalf("document %+v", d)
	}
	path := "/api/v1/customers/" + cus + "/documents/" + d.ID + "/file"
	g := f.do(t, who, "GET", path, "", nil)
	sum := sha256.Sum256(g.body)
	if g.status != http.StatusOK || g.header.Get("Content-Type") != "image/png" || g.header.Get("Content-Length") != fmt.Sprint(d.FileSize) ||
		hex.EncodeToString(sum[:]) != d.SHA256 || g.header.Get("ETag") != `"`+d.SHA256+`"` ||
		g.header.Get("Content-Disposition") != `attachment; filename=contract.png` {
		t.Fatalf("download %d %v (%d bytes)", g.status, g.header, len(g.body))
	}
	for _, other := range []tenant{{ids.New("org"), "test"}, {who.org, "live"}} {
		if o := f.do(t, other, "GET", path, "", nil); o.status != http.StatusNotFound {
			t.Fatalf("%v reads another tenant's file: %d", other, o.status)
		}
		if o := f.do(t, other, "GET", "/api/v1/customers/"+cus+"/documents", "", nil); o.status != http.StatusNotFound {
			t.Fatalf("%v lists another tenant's documents: %d", other, o.status)
		}
	}
	// A deleted customer's documents are gone for everyone.
	f.event(t, who, events.TypeCustomerDeleted, cus)
	if o := f.do(t, who, "GET", path, "", nil); o.status != http.StatusNotFound {
		t.Fatalf("deleted customer's file: %d", o.status)
	}
	if o := f.upload(t, who, cus, part{name: "documentType", value: "OTHER"}, part{name: "file", file: "a.png", value: string(raw)}); o.status != http.StatusNotFound {
		t.Fatalf("upload to a deleted customer: %d", o.status)
	}
}

func TestUploadRefusals(t *testing.T) {
	f := setup(t, nil)
	who := newTenant("live")
	cus := f.customer(t, who)
	var photo bytes.Buffer
	_ = jpeg.Encode(&photo, image.NewGray(image.Rect(0, 0, 200, 100)), nil)
	big := bytes.Repeat([]byte{'%'}, document.MaxFileSize+1)
	copy(big, "%PDF-1.4\n")
	cases := []struct {
		name   string
		parts  []part
		status int
		code   string
		field  string
	}{
		{"no documentType", []part{{name: "file", file: "a.png", value: string(pngBytes(t, 4, 4))}}, 400, apperr.CodeValidation, "documentType"},
		{"no file", []part{{name: "documentType", value: "OTHER"}}, 400, apperr.CodeValidation, "file"},
		{"bad documentType", []part{{name: "documentType", value: "SELFIE"}, {name: "file", file: "a.png", value: string(pngBytes(t, 4, 4))}}, 400, apperr.CodeValidation, "documentType"},
		{"unknown part", []part{{name: "documentType", value: "OTHER"}, {name: "owner", value: "x"}}, 400, apperr.CodeValidation, "owner"},
		{"empty file", []part{{name: "documentType", value: "OTHER"}, {name: "file", file: "a.pdf", value: ""}}, 400, apperr.CodeValidation, "file"},
		{"shell script", []part{{name: "documentType", value: "OTHER"}, {name: "file", file: "a.pdf", value: "#!/bin/sh\necho pwned\n"}}, 415, document.CodeUnsupportedFile, ""},
		{"truncated JPEG", []part{{name: "documentType", value: "ID_CARD"}, {name: "file", file: "a.jpg", value: string(photo.Bytes()[:photo.Len()/2])}}, 422, document.CodeInvalidFile, ""},
		{"10 MiB + 1", []part{{name: "documentType", value: "BANK_STATEMENT"}, {name: "file", file: "a.pdf", value: string(big)}}, 413, document.CodeFileTooLarge, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := f.upload(t, who, cus, c.parts...)
			if r.status != c.status || r.code() != c.code {
				t.Fatalf("%d %s, want %d %s", r.status, r.body, c.status, c.code)
			}
			if c.field != "" && r.env.Error.Details[0].Field != c.field {
				t.Fatalf("details %+v, want %s", r.env.Error.Details, c.field)
			}
		})
	}
	if l := f.do(t, who, "GET", "/api/v1/customers/"+cus+"/documents", "", nil); !strings.Contains(string(l.body), `"documents":[]`) {
		t.Fatalf("a refused upload left a record: %s", l.body)
	}
}

// Twenty documents per customer, under concurrency too: 30 racing adds
// give exactly 20 created and 10 DOCUMENT_LIMIT_REACHED.
func TestTwentyDocumentsAtMostEvenUnderRaces(t *testing.T) {
	f := setup(t, nil)
	who := newTenant("live")
	cus := f.customer(t, who)
	var mu sync.Mutex
	got := map[string]int{}
	var wg sync.WaitGroup
	for i := range 30 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var r response
			if i%3 == 0 {
				r = f.upload(t, who, cus, part{name: "documentType", value: "OTHER"}, part{name: "file", file: "a.png", value: string(pngBytes(t, 8, 8))})
			} else {
				r = f.link(t, who, cus, linkBody)
			}
			mu.Lock()
			got[fmt.Sprintf("%d %s", r.status, r.code())]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	if got["201 "] != 20 || got["409 "+document.CodeDocumentLimit] != 10 {
		t.Fatalf("outcomes %v", got)
	}
}

// With the object store down an upload is 503 STORAGE_UNAVAILABLE and
// nothing is recorded, and a download is 503 too (not a broken 200).
func TestStoreDownIsStorageUnavailable(t *testing.T) {
	mc, err := minio.New("127.0.0.1:1", &minio.Options{Creds: credentials.NewStaticV4("a", "b", "")})
	if err != nil {
		t.Fatal(err)
	}
	up := setup(t, nil)
	who := newTenant("test")
	cus := up.customer(t, who)
	stored := up.upload(t, who, cus, part{name: "documentType", value: "OTHER"}, part{name: "file", file: "a.png", value: string(pngBytes(t, 8, 8))})
	f := serve(t, up.pool, objstore.Bucket{Client: mc, Name: "down"})
	path := "/api/v1/customers/" + cus + "/documents/" + stored.doc(t).ID + "/file"
	if g := f.do(t, who, "GET", path, "", nil); g.status != http.StatusServiceUnavailable || g.code() != document.CodeStorageUnavailable {
		t.Fatalf("download with the store down: %d %s", g.status, g.body)
	}
	r := f.upload(t, who, cus, part{name: "documentType", value: "OTHER"}, part{name: "file", file: "a.png", value: string(pngBytes(t, 8, 8))})
	if r.status != http.StatusServiceUnavailable || r.code() != document.CodeStorageUnavailable {
		t.Fatalf("%d %s", r.status, r.body)
	}
	if l := f.do(t, who, "GET", "/api/v1/customers/"+cus+"/documents", "", nil); strings.Count(string(l.body), `"id":"doc_`) != 1 {
		t.Fatalf("half-written record: %s", l.body)
	}
}

// Every added document, and only those, is published as document.added
// through the outbox, keyed by its customer.
func TestAddedDocumentsArePublishedThroughTheOutbox(t *testing.T) {
	pool, _ := pgtest.NewDB(t, migrations.Set(), inbox.Migration(), outbox.Migration(), pending.Migration())
	mc, name := miniotest.NewBucket(t)
	store := postgres.New(pool, "document-events", events.Publisher{View: httpapi.View{BaseURL: "https://api.example.com"}}.Of)
	svc := document.NewService(store, objstore.Bucket{Client: mc, Name: name}, time.Now)
	who := document.Caller{OrgID: ids.New("org"), Env: "test"}
	cus := ids.New("cus")
	in := inbox.New("document.customers", nil, pool, logging.Discard(), inbox.HandlerOf(events.Subscriptions(svc, store.Within), "document.customers"))
	e, _ := event.New(events.TypeCustomerCreated, who.OrgID, who.Env, map[string]any{"customerId": cus})
	if err := in.Apply(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	str := func(s string) *string { return &s }
	size := int64(10)
	ctx := principal.With(context.Background(), principal.Principal{Kind: principal.KindAPIKey, OrgID: who.OrgID, Env: principal.EnvTest, KeyID: "key_test"})
	d, err := svc.AddLink(ctx, who, cus, document.LinkInput{FileName: str("a.pdf"), FileURL: str("https://files.example.com/a.pdf"),
		FileType: str("application/pdf"), FileSize: &size, DocumentType: str("OTHER")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.AddLink(ctx, who, cus, document.LinkInput{}); err == nil {
		t.Fatal("invalid link accepted")
	}
	var typ, key, topic string
	var payload events.DocumentAdded
	var n int
	if err := pool.QueryRow(context.Background(), `SELECT count(*) OVER (), event_type, msg_key, topic, payload->'data' FROM outbox WHERE event_type <> 'org.action'`).
		Scan(&n, &typ, &key, &topic, &payload); err != nil {
		t.Fatal(err)
	}
	if n != 1 || typ != events.TypeDocumentAdded || key != cus || topic != "document-events" || payload.Document.ID != d.ID || payload.CustomerID != cus {
		t.Fatalf("outbox: %d %s %s %s %+v", n, typ, key, topic, payload)
	}
}

// A 10 MiB upload is streamed: the request allocates a small fraction of
// the file's size (the multipart reader, the spool copy buffer and the
// store client's), never the whole file.
func TestUploadIsStreamed(t *testing.T) {
	f := setup(t, nil)
	who := newTenant("test")
	cus := f.customer(t, who)
	pdf := bytes.Repeat([]byte("0123456789abcdef"), document.MaxFileSize/16)
	copy(pdf, "%PDF-1.7\n")
	copy(pdf[len(pdf)-6:], "%%EOF\n")
	ct, body := form(part{name: "documentType", value: "BANK_STATEMENT"}, part{name: "file", file: "statement.pdf", value: string(pdf)})
	raw := body.Bytes()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r := f.do(t, who, "POST", "/api/v1/customers/"+cus+"/documents", ct, bytes.NewReader(raw))
	runtime.ReadMemStats(&after)
	if r.status != http.StatusCreated || r.doc(t).FileSize != int64(len(pdf)) {
		t.Fatalf("%d %s", r.status, r.body)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("a %d-byte upload allocated %d bytes in all", len(pdf), alloc)
	if alloc > uint64(len(pdf))/2 {
		t.Fatalf("a %d-byte upload allocated %d bytes: not streamed", len(pdf), alloc)
	}
}
