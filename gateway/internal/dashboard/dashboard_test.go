package dashboard

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
	// The dashboard's API lives beside the page and must stay its own.
	mux.HandleFunc("POST /dashboard/v1/login", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
	return rec.Result()
}

func TestThePageAndItsModulesAreServed(t *testing.T) {
	r := serve("GET", "/dashboard/")
	body, _ := io.ReadAll(r.Body)
	if r.StatusCode != http.StatusOK || !strings.Contains(string(body), `type="module" src="app.js"`) {
		t.Fatalf("GET /dashboard/: %d %s", r.StatusCode, body)
	}
	if csp := r.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe") {
		t.Fatalf("CSP %q", csp)
	}
	for _, f := range []string{"app.js", "api.js", "dom.js", "keys.js", "app.css", "roles.js", "team.js", "audit.js", "invite.js"} {
		if r := serve("GET", "/dashboard/"+f); r.StatusCode != http.StatusOK {
			t.Errorf("%s: %d", f, r.StatusCode)
		}
	}
	if r := serve("GET", "/dashboard"); r.StatusCode != http.StatusMovedPermanently {
		t.Fatalf("/dashboard: %d", r.StatusCode)
	}
}

func TestThePageDoesNotShadowItsAPI(t *testing.T) {
	if r := serve("POST", "/dashboard/v1/login"); r.StatusCode != http.StatusOK {
		t.Fatalf("POST /dashboard/v1/login: %d", r.StatusCode)
	}
	if r := serve("GET", "/dashboard/v1/unknown"); r.StatusCode != http.StatusNotFound {
		t.Fatalf("an API path answered by the page: %d", r.StatusCode)
	}
}

// TestTheDashboardIsSmall bounds every file together, gzipped: more than a
// first load fetches (pages load when opened), well under the 150 KB goal.
func TestTheDashboardIsSmall(t *testing.T) {
	n, raw, gz := App.Size()
	t.Logf("dashboard: %d files, %d bytes, %d bytes gzipped", n, raw, gz)
	if gz > 60<<10 {
		t.Fatalf("the dashboard is %d bytes gzipped, over 60 KB", gz)
	}
}
