// Package webapp serves a browser app made of static files embedded in the
// gateway binary (the agents' app, the client dashboard): one exact GET
// route per file, gzip chosen once at start-up, an ETag per file and a
// Content-Security-Policy, so `make run` needs no Node toolchain and an
// app always matches the API it ships with.
package webapp

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"sort"
	"strings"
)

// App is one app's files, ready to serve.
type App struct {
	prefix, csp string
	// Version is a hash of every file; "__VERSION__" in a file is replaced
	// by it (a service worker uses it to replace a cached copy of the app).
	Version string
	assets  map[string]*asset
}

type asset struct {
	body, gz []byte
	ctype    string
	etag     string
	csp      string
}

// New loads every file under dir of files, to be served under prefix
// ("/agent/") with the policy csp. It panics on an unreadable embed: that
// is a build error, not a runtime one.
func New(files fs.FS, dir, prefix, csp string) *App {
	sub, err := fs.Sub(files, dir)
	if err != nil {
		panic(err)
	}
	var names []string
	_ = fs.WalkDir(sub, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, p)
		}
		return err
	})
	sort.Strings(names)
	all := sha256.New()
	raw := map[string][]byte{}
	for _, n := range names {
		b, err := fs.ReadFile(sub, n)
		if err != nil {
			panic(err)
		}
		raw[n] = b
		all.Write([]byte(n))
		all.Write(b)
	}
	a := &App{prefix: prefix, csp: csp, Version: hex.EncodeToString(all.Sum(nil))[:12], assets: map[string]*asset{}}
	for _, n := range names {
		b := bytes.ReplaceAll(raw[n], []byte("__VERSION__"), []byte(a.Version))
		sum := sha256.Sum256(b)
		a.assets[n] = &asset{body: b, gz: gz(b), ctype: contentType(n), etag: `"` + hex.EncodeToString(sum[:8]) + `"`, csp: csp}
	}
	return a
}

func contentType(name string) string {
	switch path.Ext(name) { // the platform's mime table may lack these
	case ".js":
		return "text/javascript; charset=utf-8"
	case ".webmanifest":
		return "application/manifest+json"
	case ".svg":
		return "image/svg+xml"
	}
	return mime.TypeByExtension(path.Ext(name))
}

func gz(b []byte) []byte {
	var buf bytes.Buffer
	w, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	_, _ = w.Write(b)
	_ = w.Close()
	return buf.Bytes()
}

// Register adds one exact GET route per file (prefix itself for
// index.html), so the app never shadows an API path under the same
// prefix: those keep their own 404 and 405 answers. The prefix without
// its slash redirects to it.
func (a *App) Register(mux *http.ServeMux) {
	for name, f := range a.assets {
		p := a.prefix + name
		if name == "index.html" {
			p = a.prefix + "{$}"
		}
		mux.Handle("GET "+p, f)
	}
	mux.Handle("GET "+strings.TrimSuffix(a.prefix, "/"), http.RedirectHandler(a.prefix, http.StatusMovedPermanently))
}

// Size is the sum over every file of the app, as is and gzipped: what a
// browser downloads when it loads them all.
func (a *App) Size() (files, raw, gzipped int) {
	for _, f := range a.assets {
		raw += len(f.body)
		gzipped += len(f.gz)
	}
	return len(a.assets), raw, gzipped
}

func (f *asset) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", f.ctype)
	h.Set("Content-Security-Policy", f.csp)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	// Revalidate every time: a deploy must reach the browser at once, and
	// the ETag makes the check cheap.
	h.Set("Cache-Control", "no-cache")
	h.Set("ETag", f.etag)
	h.Set("Vary", "Accept-Encoding")
	if r.Header.Get("If-None-Match") == f.etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	body := f.body
	if acceptsGzip(r.Header.Get("Accept-Encoding")) {
		h.Set("Content-Encoding", "gzip")
		body = f.gz
	}
	_, _ = w.Write(body)
}

func acceptsGzip(v string) bool {
	for _, p := range strings.Split(v, ",") {
		name, q, _ := strings.Cut(strings.TrimSpace(p), ";")
		if strings.EqualFold(strings.TrimSpace(name), "gzip") && strings.ReplaceAll(strings.TrimSpace(q), " ", "") != "q=0" {
			return true
		}
	}
	return false
}
