// Package agentapp serves the field agents' phone app: static files
// embedded in the gateway binary (served by package webapp). The app
// talks only to /agent/v1 on the same origin.
package agentapp

import (
	"embed"
	"net/http"

	"github.com/kycfield/kyc/gateway/internal/webapp"
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

// App is the agents' app; its Version is written into the service worker
// so a new build replaces the phone's cached copy.
var App = webapp.New(static, "static", Prefix, CSP)

// Register adds the app's routes (see webapp.App.Register).
func Register(mux *http.ServeMux) { App.Register(mux) }
