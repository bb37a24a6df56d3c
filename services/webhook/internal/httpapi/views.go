package httpapi

import (
	"github.com/kycfield/kyc/pkg/envelope"
	"github.com/kycfield/kyc/services/webhook/internal/webhook"
)

// Endpoint is an endpoint as the API shows it. Secret is only in the
// responses of create, rotate-secret and GET .../secret.
type Endpoint struct {
	ID             string   `json:"id"`
	URL            string   `json:"url"`
	Description    string   `json:"description"`
	Events         []string `json:"events"`
	Enabled        bool     `json:"enabled"`
	DisabledReason *string  `json:"disabledReason"`
	Secret         string   `json:"secret,omitempty"`
	// PreviousSecretExpiresAt is when the secret before the last rotation
	// stops signing (null when none does).
	PreviousSecretExpiresAt *string `json:"previousSecretExpiresAt"`
	FailingSince            *string `json:"failingSince"`
	CreatedAt               *string `json:"createdAt"`
	UpdatedAt               *string `json:"updatedAt"`
}

func endpointView(e webhook.Endpoint, withSecret bool) Endpoint {
	v := Endpoint{ID: e.ID, URL: e.URL, Description: e.Description, Events: e.Events, Enabled: e.Enabled,
		CreatedAt: envelope.Timestamp(e.CreatedAt), UpdatedAt: envelope.Timestamp(e.UpdatedAt)}
	if e.DisabledReason != "" {
		v.DisabledReason = &e.DisabledReason
	}
	if withSecret {
		v.Secret = e.Secret
	}
	if e.PreviousSecret != "" && e.PreviousUntil != nil {
		v.PreviousSecretExpiresAt = envelope.Timestamp(*e.PreviousUntil)
	}
	if e.FailingSince != nil {
		v.FailingSince = envelope.Timestamp(*e.FailingSince)
	}
	return v
}

// Delivery is one event's delivery to an endpoint with every attempt.
type Delivery struct {
	ID            string    `json:"id"`
	EndpointID    string    `json:"endpointId"`
	EventID       string    `json:"eventId"`
	EventType     string    `json:"eventType"`
	Status        string    `json:"status"`
	AttemptCount  int       `json:"attemptCount"`
	NextAttemptAt *string   `json:"nextAttemptAt"`
	CreatedAt     *string   `json:"createdAt"`
	Attempts      []Attempt `json:"attempts"`
}

// Attempt is one HTTP call of a delivery.
type Attempt struct {
	Attempt      int     `json:"attempt"`
	Trigger      string  `json:"trigger"`
	At           *string `json:"at"`
	StatusCode   *int    `json:"statusCode"`
	LatencyMS    int64   `json:"latencyMs"`
	ResponseBody string  `json:"responseBody"`
	Error        *string `json:"error"`
	Succeeded    bool    `json:"succeeded"`
}

func deliveryView(d webhook.Delivery) Delivery {
	v := Delivery{ID: d.ID, EndpointID: d.EndpointID, EventID: d.MessageID, EventType: d.EventType, Status: d.Status,
		AttemptCount: d.Attempts, CreatedAt: envelope.Timestamp(d.CreatedAt), Attempts: make([]Attempt, len(d.Log))}
	if d.NextAttemptAt != nil {
		v.NextAttemptAt = envelope.Timestamp(*d.NextAttemptAt)
	}
	for i, a := range d.Log {
		av := Attempt{Attempt: a.Number, Trigger: a.Trigger, At: envelope.Timestamp(a.At), LatencyMS: a.LatencyMS,
			ResponseBody: a.Response, Succeeded: a.Succeeded}
		if a.StatusCode != 0 {
			av.StatusCode = &a.StatusCode
		}
		if a.Error != "" {
			av.Error = &a.Error
		}
		v.Attempts[i] = av
	}
	return v
}
