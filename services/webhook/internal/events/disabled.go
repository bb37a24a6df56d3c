package events

import (
	"time"

	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/services/webhook/internal/webhook"
)

// TypeEndpointDisabled is published on webhook-events when the platform
// disables an endpoint (410 Gone, or failing for days), so the dashboard
// can tell its organization.
const TypeEndpointDisabled = "endpoint.disabled"

// EndpointDisabled is the data of endpoint.disabled. The producer owns it
// and its schema (api/events/webhook-events.json).
type EndpointDisabled struct {
	EndpointID string `json:"endpointId"`
	URL        string `json:"url"`
	Reason     string `json:"reason"`
	DisabledAt string `json:"disabledAt"`
}

// Disabled is the event published for e, disabled just now.
func Disabled(e webhook.Endpoint) (event.Event, error) {
	return event.New(TypeEndpointDisabled, e.OrgID, e.Env, EndpointDisabled{EndpointID: e.ID, URL: e.URL,
		Reason: e.DisabledReason, DisabledAt: stamp(e.UpdatedAt)})
}

// Contract is the webhook context's side of the event contracts.
func Contract() event.Contract {
	return event.Contract{Samples: samples, Reads: inbox.Reads(Subscriptions(nil, "")...)}
}

func samples() []event.Sample {
	at := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	e := webhook.Endpoint{ID: "whe_019a2b3c4d5e6f708192a3b4c5d6e7f8", OrgID: "org_019a2b3c4d5e6f708192a3b4c5d6e7f8", Env: "live",
		URL: "https://hooks.example.com/kyc", DisabledReason: webhook.DisabledGone, UpdatedAt: at}
	ev, err := Disabled(e)
	if err != nil {
		panic(err) // a fixed value that cannot be marshalled is a programming error
	}
	return []event.Sample{{Topic: event.TopicWebhook, Event: ev}}
}
