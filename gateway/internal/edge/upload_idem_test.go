package edge

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kycfield/kyc/gateway/internal/keys"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/pkg/redistest"
)

// uploadService stands in for the document service: it answers after
// reading only the start of the body (as a 404 for an unknown customer
// does), says which call it is, and signals that it has seen the start.
func uploadService(g *testGateway) (calls *atomic.Int32, started chan struct{}) {
	calls, started = new(atomic.Int32), make(chan struct{}, 16)
	serve := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		_, _ = io.CopyN(io.Discard, r.Body, 1024)
		started <- struct{}{}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, `{"status":true,"data":{"call":%d}}`, n)
	})
	g.serve.Store(&serve)
	return calls, started
}

// form builds a multipart upload of file with a fresh random boundary, as
// curl and most HTTP libraries do on every attempt.
func form(file []byte) (body []byte, contentType string) {
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	_ = mw.WriteField("documentType", "UTILITY_BILL")
	fw, _ := mw.CreateFormFile("file", "bill.jpg")
	_, _ = fw.Write(file)
	_ = mw.Close()
	return b.Bytes(), mw.FormDataContentType()
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return b
}

// An upload with an Idempotency-Key streams to the service and is
// fingerprinted on the way, over every byte of every part, even when the
// service answers after reading only the start: a retry of the same file
// (with a new boundary) replays the first answer without reaching the
// service; a retry whose file differs only in its last byte is refused.
func TestUploadIdempotencyFingerprintsTheWholeStream(t *testing.T) {
	rdb, prefix := redistest.New(t)
	g := newTestGateway(t, rdb, prefix, keys.Plan{ID: "growth", LiveAccess: true})
	key := g.newKey(principal.EnvTest)
	calls, started := uploadService(g)
	send := func(idemKey, contentType string, body io.Reader, size int64) *httptest.ResponseRecorder {
		r := httptest.NewRequest("POST", "/api/v1/customers/cus_0123456789abcdef0123456789abcdef/documents", body)
		r.ContentLength = size
		r.Header.Set("Content-Type", contentType)
		r.Header.Set("Authorization", "Bearer "+key)
		r.Header.Set("Idempotency-Key", idemKey)
		w := httptest.NewRecorder()
		g.handler.ServeHTTP(w, r)
		return w
	}
	upload := func(idemKey string, file []byte) *httptest.ResponseRecorder {
		body, ct := form(file)
		return send(idemKey, ct, bytes.NewReader(body), int64(len(body)))
	}
	file := randomBytes(3 << 20)

	// The first upload streams: the service sees its start while the
	// client has not sent its end (a gateway that buffered would wait).
	body, ct := form(file)
	pr, pw := io.Pipe()
	go func() {
		_, _ = pw.Write(body[:1<<20])
		select {
		case <-started:
			_, _ = pw.Write(body[1<<20:])
			_ = pw.Close()
		case <-time.After(10 * time.Second):
			_ = pw.CloseWithError(errors.New("the service never saw the start of the upload: the gateway buffered it"))
		}
	}()
	first := send("upload-1", ct, pr, int64(len(body)))
	if first.Code != http.StatusCreated || first.Body.String() != `{"status":true,"data":{"call":1}}` {
		t.Fatalf("first upload: %d %s", first.Code, first.Body)
	}
	again := upload("upload-1", file)
	if again.Code != http.StatusCreated || again.Body.String() != first.Body.String() || again.Header().Get("Idempotent-Replayed") != "true" {
		t.Fatalf("retry of the same file: %d %s %v", again.Code, again.Body, again.Header())
	}
	changed := bytes.Clone(file)
	changed[len(changed)-1] ^= 0xff
	if w := upload("upload-1", changed); w.Code != http.StatusUnprocessableEntity || !bytes.Contains(w.Body.Bytes(), []byte("IDEMPOTENCY_KEY_REUSED")) {
		t.Fatalf("retry with another last byte: %d %s", w.Code, w.Body)
	}
	if w := upload("upload-2", changed); w.Code != http.StatusCreated || w.Header().Get("Idempotent-Replayed") != "" {
		t.Fatalf("a new key runs: %d %s", w.Code, w.Body)
	}

	// A body that only claims to be multipart is fingerprinted byte for byte.
	junk := randomBytes(1 << 20)
	const junkType = "multipart/form-data; boundary=never-there"
	if w := send("junk", junkType, bytes.NewReader(junk), int64(len(junk))); w.Code != http.StatusCreated {
		t.Fatalf("junk upload: %d %s", w.Code, w.Body)
	}
	if w := send("junk", junkType, bytes.NewReader(junk), int64(len(junk))); w.Header().Get("Idempotent-Replayed") != "true" {
		t.Fatalf("junk retry: %d %s", w.Code, w.Body)
	}
	junk[0] ^= 0xff
	if w := send("junk", junkType, bytes.NewReader(junk), int64(len(junk))); w.Code != http.StatusUnprocessableEntity {
		t.Fatalf("other junk: %d %s", w.Code, w.Body)
	}
	if n := calls.Load(); n != 3 {
		t.Fatalf("the service was called %d times, want 3", n)
	}
}
