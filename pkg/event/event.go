// Package event defines the one envelope every event on Kafka uses, and
// the topic each bounded context publishes to.
package event

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
)

// Topics, one per publishing context. Deployments add a prefix
// (KAFKA_TOPIC_PREFIX) so that environments and tests share a broker.
const (
	TopicAuth         = "auth-events"
	TopicCustomer     = "customer-events"
	TopicVerification = "verification-events"
	TopicGatewayUsage = "gateway-usage"
	TopicDocument     = "document-events"
	TopicReporting    = "reporting-events"
	TopicWebhook      = "webhook-events"
	// TopicStaffAudit carries what our operations staff did, from every
	// service they act through (pkg/staffaudit).
	TopicStaffAudit = "staff-audit"
	// TopicOrgAudit carries what a lender's members and keys did to their
	// organization, from every service they act through (pkg/orgaudit).
	TopicOrgAudit = "org-audit"
)

// Event is the JSON envelope of every message.
type Event struct {
	ID          string          `json:"id"`
	Type        string          `json:"type"`
	Time        time.Time       `json:"time"`
	OrgID       string          `json:"orgId"`
	Environment string          `json:"environment,omitempty"`
	Data        json.RawMessage `json:"data"`
}

// New builds an event with a fresh id and the current time.
func New(typ, orgID, env string, data any) (Event, error) {
	raw, err := json.Marshal(data)
	if err != nil {
		return Event{}, fmt.Errorf("event: marshal %s: %w", typ, err)
	}
	return Event{ID: uuid.NewString(), Type: typ, Time: time.Now().UTC(), OrgID: orgID, Environment: env, Data: raw}, nil
}

// Decode parses an event and checks the fields every consumer relies on.
func Decode(b []byte) (Event, error) {
	var e Event
	if err := json.Unmarshal(b, &e); err != nil {
		return Event{}, fmt.Errorf("event: decode: %w", err)
	}
	if e.ID == "" || e.Type == "" {
		return Event{}, fmt.Errorf("event: missing id or type")
	}
	return e, nil
}

// Sample is an event as a producer publishes it, on its topic (short name).
type Sample struct {
	Topic string
	Event Event
}

// Contract is a context's side of the event contracts, held to the
// schemas in api/events by the contract test in the stack module: what it
// publishes, as samples its own code builds, and the struct it decodes the
// data of each event type it consumes into. A consumer field without
// omitempty is one the producer must send; renaming or dropping it on
// either side fails the test.
type Contract struct {
	Samples func() []Sample
	Reads   []Read
}

// Read is an event type a consumer handles and the zero value of the
// struct it decodes the data into (inbox.Reads derives them from the
// consumer's registrations).
type Read struct {
	Type string
	Into any
}
