// Package webhook is the webhook context's domain: the endpoints a client
// registers, the rules they obey (how many, which URLs, which events),
// the messages to deliver and the schedule their deliveries follow. It
// knows nothing of HTTP handlers, SQL or Kafka.
package webhook

import (
	"time"

	"github.com/kycfield/kyc/pkg/apperr"
)

// Event types delivered to endpoints.
const (
	TypeAddressUpdated = "verification.address.updated"
	TypeCompleted      = "verification.completed"
	TypeRejected       = "verification.rejected"
	// TypeTest is sent by POST /webhooks/{id}/test, whatever the
	// endpoint subscribes to.
	TypeTest = "webhook.test"
	// AllEvents subscribes an endpoint to every type, today's and future.
	AllEvents = "*"
)

// Stage events: one per step of an address's field visit, and the
// customer's report once it is rendered. The webhook context derives them
// from the verification and reporting events it consumes. A customer's
// stage events are listed, and sent to each endpoint, in the order they
// happened (Staged).
const (
	TypeAddressAssigned  = "address.assigned"   // an agent has the address
	TypeAddressCheckedIn = "address.checked_in" // the agent is on site
	TypeAddressAttempted = "address.attempted"  // a visit ended without access; a re-visit follows
	TypeAddressVerified  = "address.verified"
	TypeAddressRejected  = "address.rejected"
	TypeReportReady      = "report.ready" // a report version of the customer can be downloaded
)

// Staged are the stage event types, whose deliveries keep each
// customer's order.
var Staged = []string{TypeAddressAssigned, TypeAddressCheckedIn, TypeAddressAttempted, TypeAddressVerified,
	TypeAddressRejected, TypeReportReady}

// Subscribable are the types an endpoint may name in events.
var Subscribable = append([]string{TypeAddressUpdated, TypeCompleted, TypeRejected}, Staged...)

// Limits and fixed durations.
const (
	MaxEndpoints     = 10 // per organization and environment
	MaxDescription   = 500
	RotationOverlap  = 24 * time.Hour // an old secret keeps signing this long
	EnvTest          = "test"
	maxEventsEntries = 16
)

// Why an endpoint was disabled.
const (
	DisabledGone    = "GONE"    // it answered 410 Gone
	DisabledFailing = "FAILING" // every attempt failed for DisableAfter
)

// Delivery statuses.
const (
	StatusPending   = "pending"   // not attempted yet
	StatusRetrying  = "retrying"  // failed, another attempt is scheduled
	StatusSucceeded = "succeeded" // a 2xx arrived
	StatusExhausted = "exhausted" // every scheduled attempt failed
)

// DeliveryStatuses are the values of a delivery's status.
var DeliveryStatuses = []string{StatusPending, StatusRetrying, StatusSucceeded, StatusExhausted}

// Attempt triggers.
const (
	TriggerScheduled = "scheduled"
	TriggerManual    = "manual"
)

// Error codes of the webhook context (documented in api/openapi.yaml).
const (
	CodeInvalidWebhookURL = "INVALID_WEBHOOK_URL"
	CodeEndpointLimit     = "WEBHOOK_LIMIT_REACHED"
	CodeEndpointDisabled  = "ENDPOINT_DISABLED"
)

var (
	// ErrNotFound is an endpoint unknown to the caller.
	ErrNotFound = apperr.NotFound("Webhook endpoint")
	// ErrDeliveryNotFound is a delivery unknown to the caller.
	ErrDeliveryNotFound = apperr.NotFound("Delivery")
	errLimit            = apperr.New(apperr.KindConflict, CodeEndpointLimit,
		"An organization may register at most 10 webhook endpoints per environment")
	errDisabled = apperr.New(apperr.KindConflict, CodeEndpointDisabled,
		"The endpoint is disabled; enable it (PATCH enabled=true) first")
)

// LimitReached is the error of an eleventh endpoint.
func LimitReached() error { return errLimit }

// Caller is the API key's organization and environment.
type Caller struct{ OrgID, Env string }

// Endpoint is a URL registered to receive events.
type Endpoint struct {
	ID, OrgID, Env string
	URL            string
	Description    string
	// Events are the subscribed types; [AllEvents] for all.
	Events         []string
	Enabled        bool
	DisabledReason string
	// Secret signs deliveries; it is kept sealed at rest.
	Secret string
	// PreviousSecret still signs until PreviousUntil (a rotation).
	PreviousSecret string
	PreviousUntil  *time.Time
	// FailingSince is the first failure since the last success.
	FailingSince *time.Time
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// Wants reports whether the endpoint subscribes to typ.
func (e Endpoint) Wants(typ string) bool {
	for _, t := range e.Events {
		if t == AllEvents || t == typ {
			return true
		}
	}
	return false
}

// Secrets are the secrets that sign a delivery at now: the current one,
// and the previous one during its overlap.
func (e Endpoint) Secrets(now time.Time) []string {
	out := []string{e.Secret}
	if e.PreviousSecret != "" && e.PreviousUntil != nil && now.Before(*e.PreviousUntil) {
		out = append(out, e.PreviousSecret)
	}
	return out
}

// Message is one event as delivered: the body is fixed when the event
// arrives, so every attempt sends the same bytes under the same id.
type Message struct {
	ID, OrgID, Env, Type string
	Body                 []byte
	CreatedAt            time.Time
	// CustomerID is the customer the event is about ("" for webhook.test),
	// for the events API's customerId filter.
	CustomerID string
}

// Delivery is a message bound for one endpoint, with its schedule.
type Delivery struct {
	ID, EndpointID, OrgID, Env string
	MessageID, EventType       string
	Status                     string
	// Attempts counts every attempt, Scheduled only those of the schedule
	// (a manual retry does not use up the schedule).
	Attempts, Scheduled int
	NextAttemptAt       *time.Time
	CreatedAt           time.Time
	UpdatedAt           time.Time
	Log                 []Attempt
}

// Attempt is one HTTP call of a delivery.
type Attempt struct {
	Number     int
	Trigger    string
	At         time.Time
	StatusCode int // 0: no response
	LatencyMS  int64
	Response   string // the first KiB of the body
	Error      string // why there was no response
	Succeeded  bool
}

// Succeeded reports whether an HTTP status counts as delivered: 2xx only
// (a redirect is not followed and fails).
func Succeeded(status int) bool { return status >= 200 && status < 300 }
