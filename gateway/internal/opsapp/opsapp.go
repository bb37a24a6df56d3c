// Package opsapp serves the operations console: the page where our own
// staff (admins, dispatchers, reviewers) sign in with a TOTP code and
// work the queue, coverage, agents, reviews, organizations, staff and
// the audit log. Plain ES modules embedded in the gateway binary (served
// by package webapp), calling /ops/v1 on the same origin with the
// kyc_staff cookie and its CSRF token.
package opsapp

import (
	"embed"
	"net/http"

	"github.com/kycfield/kyc/gateway/internal/webapp"
)

//go:embed static
var static embed.FS

// Prefix is where the console lives; its API (/ops/v1/...) keeps its own
// routes beside it, and the staff cookie's Path (/ops) covers both.
const Prefix = "/ops/"

// CSP allows only the console's own files and API. blob: images are
// evidence photos fetched with the session's headers; data: images are
// the embedded map's and icons.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; connect-src 'self'; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// App is the console's files.
var App = webapp.New(static, "static", Prefix, CSP)

// Register adds the console's routes (see webapp.App.Register).
func Register(mux *http.ServeMux) { App.Register(mux) }
