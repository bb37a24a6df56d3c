// Package dashboard serves the client dashboard: the page where a lender's
// staff sign up, manage API keys, the plan, customers and webhooks. Plain
// ES modules embedded in the gateway binary (served by package webapp),
// calling /dashboard/v1 and, with the session, /api/v1 on the same origin.
package dashboard

import (
	"embed"
	"net/http"

	"github.com/kycfield/kyc/gateway/internal/webapp"
)

//go:embed static
var static embed.FS

// Prefix is where the dashboard lives; its API (/dashboard/v1/...) keeps
// its own routes beside it.
const Prefix = "/dashboard/"

// CSP allows only the dashboard's own files and API. blob: images and
// frames are what the page builds from API answers (evidence photos and
// report previews fetched with the session's headers); data: images are
// a white-label logo picked from disk before it is saved.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; connect-src 'self'; " +
	"frame-src blob:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// App is the dashboard's files.
var App = webapp.New(static, "static", Prefix, CSP)

// Register adds the dashboard's routes (see webapp.App.Register).
func Register(mux *http.ServeMux) { App.Register(mux) }
