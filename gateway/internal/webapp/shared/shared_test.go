package shared

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestTheSharedFilesAreServed(t *testing.T) {
	mux := http.NewServeMux()
	Register(mux)
	for path, ctype := range map[string]string{"/shared/dom.js": "text/javascript", "/shared/base.css": "text/css"} {
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), ctype) {
			t.Errorf("%s: %d %q", path, rec.Code, rec.Header().Get("Content-Type"))
		}
	}
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest("GET", "/shared/shared.go", nil))
	if rec.Code != http.StatusNotFound {
		t.Errorf("the package's Go source is served: %d", rec.Code)
	}
}

// TestEveryReferenceIsServed reads the apps that load the shared files:
// each /shared/ path they name (an import, a stylesheet, a preload) must
// be one this package serves.
func TestEveryReferenceIsServed(t *testing.T) {
	ref := regexp.MustCompile(`"(/shared/[^"]+)"`)
	mux := http.NewServeMux()
	Register(mux)
	seen := 0
	for _, dir := range []string{"../../dashboard/static", "../../opsapp/static"} {
		names, err := filepath.Glob(filepath.Join(dir, "*"))
		if err != nil || len(names) == 0 {
			t.Fatalf("%s: %v", dir, err)
		}
		for _, n := range names {
			b, err := os.ReadFile(n)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range ref.FindAllStringSubmatch(string(b), -1) {
				seen++
				rec := httptest.NewRecorder()
				mux.ServeHTTP(rec, httptest.NewRequest("GET", m[1], nil))
				if rec.Code != http.StatusOK {
					t.Errorf("%s names %s: %d", n, m[1], rec.Code)
				}
			}
		}
	}
	if seen == 0 {
		t.Fatal("no app names a shared file")
	}
}

// TestNoScriptWritesMarkup: the shared helpers and both apps' pages build
// elements with h, never from markup, so nothing an API returns can
// become a script.
func TestNoScriptWritesMarkup(t *testing.T) {
	sinks := regexp.MustCompile(`\.(innerHTML|outerHTML|insertAdjacentHTML)\b|document\.write|\beval\(|new Function\(`)
	for _, dir := range []string{".", "../../dashboard/static", "../../opsapp/static"} {
		names, _ := filepath.Glob(filepath.Join(dir, "*.js"))
		for _, n := range names {
			b, err := os.ReadFile(n)
			if err != nil {
				t.Fatal(err)
			}
			if m := sinks.Find(b); m != nil {
				t.Errorf("%s uses %s", n, m)
			}
		}
	}
}
