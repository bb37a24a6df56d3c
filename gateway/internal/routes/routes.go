// Package routes is the gateway's table of every public path: which
// service owns it, how the caller authenticates, the scope an API key
// needs and how large a body may be. The OpenAPI test checks that every
// path here is documented.
package routes

import "github.com/kycfield/kyc/pkg/principal"

// Service names, matching the gateway's upstream configuration.
const (
	AuthBilling  = "auth-billing"
	Customer     = "customer"
	Document     = "document"
	Verification = "verification"
	Reporting    = "reporting"
	Webhook      = "webhook"
	Gateway      = "gateway" // served by the gateway itself
)

// Auth says how callers of a route authenticate.
type Auth int

// Authentication kinds.
const (
	AuthAPIKey    Auth = iota // Authorization: Bearer mk_...
	AuthDashboard             // session cookie, checked by auth-billing
	AuthPublic                // nothing
	AuthAgent                 // a field agent's session token, checked by verification
	// AuthOpen is public too (no key), but forwarded to its service with
	// an edge principal and rate-limited per client IP: the report verify
	// endpoint, where the code in the path is the only credential.
	AuthOpen
	// AuthStaff is the operations console: a staff session cookie and its
	// CSRF header, checked by auth-billing, forwarded as a staff
	// principal. API keys and lenders' sessions never pass.
	AuthStaff
)

// Body says what a route accepts.
type Body int

// Body kinds.
const (
	BodyNone   Body = iota
	BodyJSON        // JSON up to 1 MiB
	BodyUpload      // JSON up to 1 MiB or multipart up to the upload limit
)

// Route is one public operation.
type Route struct {
	Method  string
	Pattern string // net/http pattern path, e.g. /api/v1/customers/{id}
	Service string
	Auth    Auth
	Scope   string
	Body    Body
	// Action is what an organization's audit log (pkg/orgaudit) calls
	// this route's change, exactly as the service that makes it records
	// it; the gateway names a member's refused attempt with it too, so
	// that one action filter finds the attempt and the change. Empty for
	// reads (unless a read is refused or audited: a webhook secret, the
	// key list, the audit log) and outside /api/v1 and /dashboard/v1;
	// NotAudited for a write that records nothing.
	Action string
}

// NotAudited is the Action of a /dashboard/v1 write that records nothing
// in an organization's audit log: signing up (there is no organization
// yet to log it), logging out, starting a TOTP enrolment (totp.enable is
// its confirmation) and looking an invitation up (a read). It is not an
// action name (those are "resource.verb"), so it never reaches the log.
const NotAudited = "-"

// Table lists every route the gateway serves.
var Table = []Route{
	{"POST", "/api/v1/customers", Customer, AuthAPIKey, principal.ScopeWrite, BodyJSON, "customer.create"},
	{"GET", "/api/v1/customers", Customer, AuthAPIKey, principal.ScopeRead, BodyNone, ""},
	{"GET", "/api/v1/customers/{id}", Customer, AuthAPIKey, principal.ScopeRead, BodyNone, ""},
	{"PUT", "/api/v1/customers/{id}", Customer, AuthAPIKey, principal.ScopeWrite, BodyJSON, "customer.update"},
	{"DELETE", "/api/v1/customers/{id}", Customer, AuthAPIKey, principal.ScopeWrite, BodyNone, "customer.delete"},
	{"POST", "/api/v1/customers/{id}/addresses", Customer, AuthAPIKey, principal.ScopeWrite, BodyJSON, "address.add"},
	{"POST", "/api/v1/customers/{id}/documents", Document, AuthAPIKey, principal.ScopeWrite, BodyUpload, "document.upload"},
	{"GET", "/api/v1/customers/{id}/documents", Document, AuthAPIKey, principal.ScopeRead, BodyNone, ""},
	{"GET", "/api/v1/customers/{id}/documents/{docId}/file", Document, AuthAPIKey, principal.ScopeRead, BodyNone, ""},
	{"GET", "/api/v1/customers/{id}/report", Reporting, AuthAPIKey, principal.ScopeRead, BodyNone, ""},
	{"GET", "/api/v1/verification/stats", Verification, AuthAPIKey, principal.ScopeRead, BodyNone, ""},
	{"GET", "/api/v1/verification/daily", Customer, AuthAPIKey, principal.ScopeRead, BodyNone, ""},
	{"GET", "/api/v1/verification/{customerId}/status", Customer, AuthAPIKey, principal.ScopeRead, BodyNone, ""},
	{"GET", "/api/v1/verification/{customerId}/photos/{photoId}", Verification, AuthAPIKey, principal.ScopeRead, BodyNone, ""},
	{"GET", "/api/v1/billing/usage", AuthBilling, AuthAPIKey, principal.ScopeRead, BodyNone, ""},
	{"POST", "/api/v1/webhooks", Webhook, AuthAPIKey, principal.ScopeWrite, BodyJSON, "endpoint.create"},
	{"GET", "/api/v1/webhooks", Webhook, AuthAPIKey, principal.ScopeRead, BodyNone, ""},
	{"GET", "/api/v1/webhooks/{id}", Webhook, AuthAPIKey, principal.ScopeRead, BodyNone, ""},
	{"PATCH", "/api/v1/webhooks/{id}", Webhook, AuthAPIKey, principal.ScopeWrite, BodyJSON, "endpoint.update"},
	{"DELETE", "/api/v1/webhooks/{id}", Webhook, AuthAPIKey, principal.ScopeWrite, BodyNone, "endpoint.delete"},
	{"POST", "/api/v1/webhooks/{id}/rotate-secret", Webhook, AuthAPIKey, principal.ScopeWrite, BodyNone, "endpoint.rotate_secret"},
	{"GET", "/api/v1/webhooks/{id}/secret", Webhook, AuthAPIKey, principal.ScopeWrite, BodyNone, "endpoint.secret_read"},
	{"POST", "/api/v1/webhooks/{id}/test", Webhook, AuthAPIKey, principal.ScopeWrite, BodyNone, "endpoint.test"},
	{"GET", "/api/v1/webhooks/{id}/deliveries", Webhook, AuthAPIKey, principal.ScopeRead, BodyNone, ""},
	{"POST", "/api/v1/webhooks/{id}/deliveries/{deliveryId}/retry", Webhook, AuthAPIKey, principal.ScopeWrite, BodyNone, "delivery.retry"},
	{"POST", "/api/v1/webhooks/{id}/recover", Webhook, AuthAPIKey, principal.ScopeWrite, BodyJSON, "endpoint.recover"},
	{"GET", "/api/v1/events", Webhook, AuthAPIKey, principal.ScopeRead, BodyNone, ""},
	{"GET", "/api/v1/events/{id}", Webhook, AuthAPIKey, principal.ScopeRead, BodyNone, ""},
	{"GET", "/api/v1/imports/template.csv", Customer, AuthAPIKey, principal.ScopeRead, BodyNone, ""},
	{"POST", "/api/v1/imports", Customer, AuthAPIKey, principal.ScopeWrite, BodyUpload, "import.create"},
	{"GET", "/api/v1/imports/{id}", Customer, AuthAPIKey, principal.ScopeRead, BodyNone, ""},
	{"GET", "/api/v1/imports/{id}/errors", Customer, AuthAPIKey, principal.ScopeRead, BodyNone, ""},
	{"GET", "/api/v1/imports/{id}/results.csv", Customer, AuthAPIKey, principal.ScopeRead, BodyNone, ""},
	{"POST", "/api/v1/imports/{id}/start", Customer, AuthAPIKey, principal.ScopeWrite, BodyJSON, "import.start"},
	{"GET", "/api/v1/openapi.yaml", Gateway, AuthPublic, "", BodyNone, ""},
	{"GET", "/api/v1/reports/verify/{code}", Reporting, AuthOpen, "", BodyNone, ""},
	{"GET", "/api/v1/reports/branding", Reporting, AuthAPIKey, principal.ScopeRead, BodyNone, ""},
	{"PUT", "/api/v1/reports/branding", Reporting, AuthAPIKey, principal.ScopeWrite, BodyJSON, "branding.update"},

	{"POST", "/agent/v1/session", Verification, AuthAgent, "", BodyJSON, ""},
	{"DELETE", "/agent/v1/session", Verification, AuthAgent, "", BodyNone, ""},
	{"GET", "/agent/v1/tasks", Verification, AuthAgent, "", BodyNone, ""},
	{"POST", "/agent/v1/tasks/{addressId}/check-in", Verification, AuthAgent, "", BodyJSON, ""},
	{"POST", "/agent/v1/tasks/{addressId}/photos", Verification, AuthAgent, "", BodyUpload, ""},
	{"POST", "/agent/v1/tasks/{addressId}/complete", Verification, AuthAgent, "", BodyJSON, ""},

	{"POST", "/dashboard/v1/signup", AuthBilling, AuthDashboard, "", BodyJSON, NotAudited},
	{"POST", "/dashboard/v1/login", AuthBilling, AuthDashboard, "", BodyJSON, "member.sign_in"},
	{"POST", "/dashboard/v1/logout", AuthBilling, AuthDashboard, "", BodyNone, NotAudited},
	{"GET", "/dashboard/v1/me", AuthBilling, AuthDashboard, "", BodyNone, ""},
	{"POST", "/dashboard/v1/totp", AuthBilling, AuthDashboard, "", BodyNone, NotAudited},
	{"POST", "/dashboard/v1/totp/confirm", AuthBilling, AuthDashboard, "", BodyJSON, "totp.enable"},
	{"POST", "/dashboard/v1/totp/disable", AuthBilling, AuthDashboard, "", BodyJSON, "totp.disable"},
	{"GET", "/dashboard/v1/keys", AuthBilling, AuthDashboard, "", BodyNone, "key.list"},
	{"POST", "/dashboard/v1/keys", AuthBilling, AuthDashboard, "", BodyJSON, "key.create"},
	{"POST", "/dashboard/v1/keys/{id}/revoke", AuthBilling, AuthDashboard, "", BodyNone, "key.revoke"},
	{"POST", "/dashboard/v1/keys/{id}/roll", AuthBilling, AuthDashboard, "", BodyJSON, "key.roll"},
	{"GET", "/dashboard/v1/plan", AuthBilling, AuthDashboard, "", BodyNone, ""},
	{"PUT", "/dashboard/v1/plan", AuthBilling, AuthDashboard, "", BodyJSON, "plan.change"},
	{"GET", "/dashboard/v1/plan/preview", AuthBilling, AuthDashboard, "", BodyNone, ""},
	{"GET", "/dashboard/v1/usage", AuthBilling, AuthDashboard, "", BodyNone, ""},
	{"GET", "/dashboard/v1/members", AuthBilling, AuthDashboard, "", BodyNone, ""},
	{"PATCH", "/dashboard/v1/members/{id}", AuthBilling, AuthDashboard, "", BodyJSON, "member.role_change"},
	{"DELETE", "/dashboard/v1/members/{id}", AuthBilling, AuthDashboard, "", BodyNone, "member.remove"},
	{"POST", "/dashboard/v1/invitations", AuthBilling, AuthDashboard, "", BodyJSON, "member.invite"},
	{"DELETE", "/dashboard/v1/invitations/{id}", AuthBilling, AuthDashboard, "", BodyNone, "member.invite_revoke"},
	{"POST", "/dashboard/v1/invitations/lookup", AuthBilling, AuthDashboard, "", BodyJSON, NotAudited},
	{"POST", "/dashboard/v1/invitations/accept", AuthBilling, AuthDashboard, "", BodyJSON, "member.join"},
	{"GET", "/dashboard/v1/audit", AuthBilling, AuthDashboard, "", BodyNone, "audit.read"},

	{"GET", "/ops/v1/me", AuthBilling, AuthStaff, "", BodyNone, ""},
	// Staff enrolment, sign-in and the session itself: auth-billing reads
	// and sets the kyc_staff cookie (as the dashboard's log-in does);
	// every other /ops/v1 route is a staff route.
	{"POST", "/ops/v1/enrolment/start", AuthBilling, AuthDashboard, "", BodyJSON, ""},
	{"POST", "/ops/v1/enrolment/finish", AuthBilling, AuthDashboard, "", BodyJSON, ""},
	{"POST", "/ops/v1/session", AuthBilling, AuthDashboard, "", BodyJSON, ""},
	{"GET", "/ops/v1/session", AuthBilling, AuthDashboard, "", BodyNone, ""},
	{"DELETE", "/ops/v1/session", AuthBilling, AuthDashboard, "", BodyNone, ""},
	{"GET", "/ops/v1/staff", AuthBilling, AuthStaff, "", BodyNone, ""},
	{"POST", "/ops/v1/staff", AuthBilling, AuthStaff, "", BodyJSON, ""},
	{"POST", "/ops/v1/staff/{id}/disable", AuthBilling, AuthStaff, "", BodyNone, ""},
	{"POST", "/ops/v1/staff/{id}/enable", AuthBilling, AuthStaff, "", BodyNone, ""},
	{"GET", "/ops/v1/audit", AuthBilling, AuthStaff, "", BodyNone, ""},
	{"GET", "/ops/v1/orgs", AuthBilling, AuthStaff, "", BodyNone, ""},
	{"PATCH", "/ops/v1/orgs/{id}", AuthBilling, AuthStaff, "", BodyJSON, ""},
	{"GET", "/ops/v1/queue", Verification, AuthStaff, "", BodyNone, ""},
	{"POST", "/ops/v1/queue/reassign", Verification, AuthStaff, "", BodyJSON, ""},
	{"GET", "/ops/v1/coverage", Verification, AuthStaff, "", BodyNone, ""},
	{"GET", "/ops/v1/areas", Verification, AuthStaff, "", BodyNone, ""},
	{"GET", "/ops/v1/agents", Verification, AuthStaff, "", BodyNone, ""},
	{"POST", "/ops/v1/agents", Verification, AuthStaff, "", BodyJSON, ""},
	{"PATCH", "/ops/v1/agents/{id}", Verification, AuthStaff, "", BodyJSON, ""},
	{"POST", "/ops/v1/agents/{id}/disable", Verification, AuthStaff, "", BodyNone, ""},
	{"POST", "/ops/v1/agents/{id}/enable", Verification, AuthStaff, "", BodyNone, ""},
	{"POST", "/ops/v1/agents/{id}/code", Verification, AuthStaff, "", BodyNone, ""},

	// Review before release (verification): reviewers and admins read,
	// reviewers decide (the service checks the role).
	{"GET", "/ops/v1/reviews", Verification, AuthStaff, "", BodyNone, ""},
	{"GET", "/ops/v1/reviews/{addressId}", Verification, AuthStaff, "", BodyNone, ""},
	{"GET", "/ops/v1/reviews/{addressId}/photos/{photoId}", Verification, AuthStaff, "", BodyNone, ""},
	{"POST", "/ops/v1/reviews/{addressId}/decision", Verification, AuthStaff, "", BodyJSON, ""},
}

// ReservesRows names the routes whose JSON body's "rows" is taken from
// the daily quota, all at once, before the request reaches its service
// (a bulk import's start: one request per customer it creates). The
// service answers 202 when it used the reservation; any other answer
// gives it back.
var ReservesRows = map[string]bool{"POST /api/v1/imports/{id}/start": true}
