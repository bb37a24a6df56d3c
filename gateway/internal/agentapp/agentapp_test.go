package agentapp

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func serve(t *testing.T, method, path string, hdr map[string]string) *http.Response {
	t.Helper()
	mux := http.NewServeMux()
	Register(mux)
	// What the gateway serves beside the app: its own API paths must stay theirs.
	mux.HandleFunc("POST /agent/v1/session", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusCreated) })
	req := httptest.NewRequest(method, path, nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, req)
	return rec.Result()
}

func TestThePageIsServedWithItsPolicy(t *testing.T) {
	r := serve(t, "GET", "/agent/", nil)
	body, _ := io.ReadAll(r.Body)
	if r.StatusCode != http.StatusOK || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") || !bytes.Contains(body, []byte(`src="app.js"`)) {
		t.Fatalf("GET /agent/: %d %s", r.StatusCode, r.Header.Get("Content-Type"))
	}
	if csp := r.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") {
		t.Fatalf("CSP %q", csp)
	}
	if r.Header.Get("Cache-Control") != "no-cache" || r.Header.Get("ETag") == "" {
		t.Fatalf("caching: %v", r.Header)
	}
	if r := serve(t, "GET", "/agent/", map[string]string{"If-None-Match": r.Header.Get("ETag")}); r.StatusCode != http.StatusNotModified {
		t.Fatalf("revalidation: %d", r.StatusCode)
	}
	if r := serve(t, "GET", "/agent", nil); r.StatusCode != http.StatusMovedPermanently || r.Header.Get("Location") != "/agent/" {
		t.Fatalf("/agent: %d %s", r.StatusCode, r.Header.Get("Location"))
	}
}

func TestScriptsAreModulesAndTheWorkerKnowsItsVersion(t *testing.T) {
	r := serve(t, "GET", "/agent/sw.js", map[string]string{"Accept-Encoding": "gzip, br"})
	if r.Header.Get("Content-Type") != "text/javascript; charset=utf-8" || r.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("sw.js: %v", r.Header)
	}
	zr, err := gzip.NewReader(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(zr)
	if bytes.Contains(body, []byte("__VERSION__")) || !bytes.Contains(body, []byte(App.Version)) {
		t.Fatal("the service worker does not carry the build's version")
	}
	if r := serve(t, "GET", "/agent/app.webmanifest.missing", nil); r.StatusCode != http.StatusNotFound {
		t.Fatalf("unknown file: %d", r.StatusCode)
	}
	if r := serve(t, "GET", "/agent/manifest.webmanifest", nil); r.Header.Get("Content-Type") != "application/manifest+json" {
		t.Fatalf("manifest: %s", r.Header.Get("Content-Type"))
	}
}

func TestTheAppDoesNotShadowTheAPI(t *testing.T) {
	if r := serve(t, "POST", "/agent/v1/session", nil); r.StatusCode != http.StatusCreated {
		t.Fatalf("POST /agent/v1/session: %d", r.StatusCode)
	}
	if r := serve(t, "GET", "/agent/v1/tasks", nil); r.StatusCode != http.StatusNotFound {
		t.Fatalf("an API path answered by the app: %d", r.StatusCode)
	}
}

func TestTheShellIsSmall(t *testing.T) {
	n, raw, gz := App.Size()
	t.Logf("app shell: %d files, %d bytes, %d bytes gzipped", n, raw, gz)
	if gz > 60<<10 {
		t.Fatalf("the app shell is %d bytes gzipped, over 60 KB", gz)
	}
}
