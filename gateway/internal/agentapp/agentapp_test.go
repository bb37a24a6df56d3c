package agentapp

import (
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
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

// TestTheWorkerCachesEveryFile: the app must open offline, so the service
// worker's SHELL names every file of the app (index.html as "./"), and
// nothing else.
func TestTheWorkerCachesEveryFile(t *testing.T) {
	sw, err := fs.ReadFile(static, "static/sw.js")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)const SHELL = \[(.*?)\];`).FindSubmatch(sw)
	if m == nil {
		t.Fatal("no SHELL list in sw.js")
	}
	var listed []string
	for _, q := range regexp.MustCompile(`"([^"]+)"`).FindAllSubmatch(m[1], -1) {
		listed = append(listed, string(q[1]))
	}
	want := []string{"./"}
	err = fs.WalkDir(static, "static", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && p != "static/sw.js" && p != "static/index.html" {
			want = append(want, strings.TrimPrefix(p, "static/"))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(listed)
	slices.Sort(want)
	if !slices.Equal(listed, want) {
		t.Fatalf("sw.js SHELL lists %v; the app's files are %v", listed, want)
	}
}

// TestNoScriptWritesMarkup: screens build elements with dom.js's h, so a
// customer's name or a client's note can never become markup.
func TestNoScriptWritesMarkup(t *testing.T) {
	sinks := regexp.MustCompile(`\.(innerHTML|outerHTML|insertAdjacentHTML)\b|document\.write|\beval\(|new Function\(`)
	err := fs.WalkDir(static, "static", func(p string, d fs.DirEntry, err error) error {
		if err != nil || !strings.HasSuffix(p, ".js") {
			return err
		}
		b, err := fs.ReadFile(static, p)
		if loc := sinks.FindIndex(b); err == nil && loc != nil {
			t.Errorf("%s writes markup: %s", p, b[loc[0]:loc[1]])
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
