// Package shared serves the files the dashboard and the operations
// console both load, once, at /shared/: the DOM helpers (dom.js) and the
// base stylesheet (base.css). Each app's own files add to them; the
// agent app keeps its own copies, since its service worker only keeps
// /agent/ offline.
package shared

import (
	"embed"
	"net/http"

	"github.com/kycfield/kyc/gateway/internal/webapp"
)

//go:embed dom.js base.css
var files embed.FS

// Prefix is where the shared files live; pages load them by absolute
// path (import ... from "/shared/dom.js"), which their CSP's 'self' allows.
const Prefix = "/shared/"

// CSP: the files are a module and a stylesheet, never a page.
const CSP = "default-src 'none'; frame-ancestors 'none'"

// App is the shared files.
var App = webapp.New(files, ".", Prefix, CSP)

// Register adds their routes (see webapp.App.Register).
func Register(mux *http.ServeMux) { App.Register(mux) }
