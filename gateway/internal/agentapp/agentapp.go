// Package agentapp serves the field agents' phone app: static files
// embedded in the gateway binary, so `make run` and `make test` need no
// Node toolchain and the app always matches the API it is shipped with.
// The app talks only to /agent/v1 on the same origin.
package agentapp

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"sort"
	"strings"
)

//go:embed static
var static embed.FS

// Prefix is where the app lives; the service worker's scope is this path.
const Prefix = "/agent/"

// CSP allows only the app's own files and API: no inline script, no
// third-party origin. blob: images are the photo previews the agent just
// took; the photos themselves never leave for anywhere but /agent/v1.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob:; connect-src 'self'; " +
	"manifest-src 'self'; worker-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

type asset struct {
	body, gz []byte
	ctype    string
	etag     string
}

// Version is a hash of every file, written into the service worker so a
// new build replaces the phone's cached copy of the app.
var Version string

var assets = load()

func load() map[string]*asset {
	sub, err := fs.Sub(static, "static")
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
	Version = hex.EncodeToString(all.Sum(nil))[:12]
	out := map[string]*asset{}
	for _, n := range names {
		b := raw[n]
		if n == "sw.js" {
			b = bytes.ReplaceAll(b, []byte("__VERSION__"), []byte(Version))
		}
		ct := mime.TypeByExtension(path.Ext(n))
		switch path.Ext(n) { // the platform's mime table may lack these
		case ".js":
			ct = "text/javascript; charset=utf-8"
		case ".webmanifest":
			ct = "application/manifest+json"
		case ".svg":
			ct = "image/svg+xml"
		}
		sum := sha256.Sum256(b)
		out[n] = &asset{body: b, gz: gz(b), ctype: ct, etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
	}
	return out
}

func gz(b []byte) []byte {
	var buf bytes.Buffer
	w, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	_, _ = w.Write(b)
	_ = w.Close()
	return buf.Bytes()
}

// Register adds one exact GET route per file (and /agent/ for the page),
// so the app never shadows an /agent/v1 path: those keep their own 404
// and 405 answers.
func Register(mux *http.ServeMux) {
	for name, a := range assets {
		p := Prefix + name
		if name == "index.html" {
			p = Prefix + "{$}"
		}
		mux.Handle("GET "+p, a)
	}
	mux.Handle("GET /agent", http.RedirectHandler(Prefix, http.StatusMovedPermanently))
}

// ShellSize is the gzip size of every file of the app, what a phone
// downloads on its first visit.
func ShellSize() (raw, gzipped int) {
	for _, a := range assets {
		raw += len(a.body)
		gzipped += len(a.gz)
	}
	return raw, gzipped
}

func (a *asset) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", a.ctype)
	h.Set("Content-Security-Policy", CSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	// Revalidate every time: the service worker, not the HTTP cache, keeps
	// the app available offline, and an ETag makes the check cheap.
	h.Set("Cache-Control", "no-cache")
	h.Set("ETag", a.etag)
	h.Set("Vary", "Accept-Encoding")
	if r.Header.Get("If-None-Match") == a.etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	body := a.body
	if acceptsGzip(r.Header.Get("Accept-Encoding")) {
		h.Set("Content-Encoding", "gzip")
		body = a.gz
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
