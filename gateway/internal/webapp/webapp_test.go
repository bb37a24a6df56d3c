package webapp

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
)

func TestServing(t *testing.T) {
	files := fstest.MapFS{
		"static/index.html": {Data: []byte("<!doctype html>")},
		"static/sw.js":      {Data: []byte(`const v = "__VERSION__";`)},
	}
	a := New(files, "static", "/app/", "default-src 'none'")
	mux := http.NewServeMux()
	a.Register(mux)
	get := func(path string, hdr ...string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("GET", path, nil)
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, req)
		return rec
	}
	cases := []struct {
		name, path string
		hdr        []string
		status     int
		encoding   string
	}{
		{"the page at the prefix", "/app/", nil, 200, ""},
		{"gzip when asked", "/app/sw.js", []string{"Accept-Encoding", "br, gzip"}, 200, "gzip"},
		{"no gzip when refused", "/app/sw.js", []string{"Accept-Encoding", "gzip;q=0"}, 200, ""},
		{"revalidation", "/app/sw.js", []string{"If-None-Match", a.assets["sw.js"].etag}, 304, ""},
		{"unknown file", "/app/nope.js", nil, 404, ""},
		{"the prefix without its slash", "/app", nil, 301, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := get(c.path, c.hdr...)
			if r.Code != c.status || r.Header().Get("Content-Encoding") != c.encoding {
				t.Fatalf("%d %v", r.Code, r.Header())
			}
			if c.status == 200 && r.Header().Get("Content-Security-Policy") != "default-src 'none'" {
				t.Fatalf("CSP %q", r.Header().Get("Content-Security-Policy"))
			}
		})
	}
	if body := get("/app/sw.js").Body.String(); strings.Contains(body, "__VERSION__") || !strings.Contains(body, a.Version) {
		t.Fatalf("version not written: %s", body)
	}
	if n, raw, gz := a.Size(); n != 2 || raw == 0 || gz == 0 {
		t.Fatalf("size %d %d %d", n, raw, gz)
	}
}
