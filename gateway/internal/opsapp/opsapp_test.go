package opsapp

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func serve(method, path string) *http.Response {
	mux := http.NewServeMux()
	Register(mux)
	// The console's API lives beside the page and must stay its own.
	mux.HandleFunc("POST /ops/v1/session", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
	return rec.Result()
}

func TestThePageAndItsModulesAreServed(t *testing.T) {
	r := serve("GET", "/ops/")
	body, _ := io.ReadAll(r.Body)
	if r.StatusCode != http.StatusOK || !strings.Contains(string(body), `type="module" src="app.js"`) {
		t.Fatalf("GET /ops/: %d %s", r.StatusCode, body)
	}
	if csp := r.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe") {
		t.Fatalf("CSP %q", csp)
	}
	for _, f := range []string{"app.js", "api.js", "staff.js", "audit.js", "orgs.js", "queue.js", "coverage.js", "agents.js", "reviews.js", "app.css"} {
		if r := serve("GET", "/ops/"+f); r.StatusCode != http.StatusOK {
			t.Errorf("%s: %d", f, r.StatusCode)
		}
	}
	if r := serve("GET", "/ops"); r.StatusCode != http.StatusMovedPermanently {
		t.Fatalf("/ops: %d", r.StatusCode)
	}
}

func TestThePageDoesNotShadowItsAPI(t *testing.T) {
	if r := serve("POST", "/ops/v1/session"); r.StatusCode != http.StatusOK {
		t.Fatalf("POST /ops/v1/session: %d", r.StatusCode)
	}
	if r := serve("GET", "/ops/v1/unknown"); r.StatusCode != http.StatusNotFound {
		t.Fatalf("an API path answered by the page: %d", r.StatusCode)
	}
}

// TestTheConsoleIsSmall bounds every file together, gzipped, the state
// map the coverage page embeds included: under the 150 KB goal.
func TestTheConsoleIsSmall(t *testing.T) {
	n, raw, gz := App.Size()
	t.Logf("console: %d files, %d bytes, %d bytes gzipped", n, raw, gz)
	if gz > 150<<10 {
		t.Fatalf("the console is %d bytes gzipped, over 150 KB", gz)
	}
}
