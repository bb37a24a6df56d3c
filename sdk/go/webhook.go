package kyc

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/kycfield/kyc/sdk/go/kycapi"
)

// maxWebhookBody bounds what VerifyRequest reads of a delivery.
const maxWebhookBody = 1 << 20

// WebhookVerifier checks that a delivery comes from the platform: its
// webhook-signature header (Standard Webhooks: HMAC-SHA256 of
// "id.timestamp.body" with the endpoint's whsec_ secret), and that its
// webhook-timestamp is within 5 minutes of now (no replays).
type WebhookVerifier struct {
	wh *standardwebhooks.Webhook
}

// NewWebhookVerifier takes the endpoint's secret (whsec_..., shown when it
// was created or rotated). During a rotation the platform signs with both
// secrets, so the new one verifies at once.
func NewWebhookVerifier(secret string) (*WebhookVerifier, error) {
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		return nil, fmt.Errorf("kyc: webhook secret: %w", err)
	}
	return &WebhookVerifier{wh: wh}, nil
}

// ErrWebhookSignature is returned (wrapped) for a delivery that does not
// verify: answer it 4xx, and do not act on it.
var ErrWebhookSignature = errors.New("kyc: webhook signature does not verify")

// Verify checks a delivery's body and headers and decodes the body's
// common fields (id, which equals webhook-id, type, createdAt, environment,
// data). Decode body into kycapi.VerificationOutcomeWebhook or
// kycapi.AddressUpdatedWebhook by Type for the rest.
func (v *WebhookVerifier) Verify(body []byte, header http.Header) (*kycapi.WebhookBody, error) {
	if err := v.wh.Verify(body, header); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrWebhookSignature, err)
	}
	var event kycapi.WebhookBody
	if err := json.Unmarshal(body, &event); err != nil {
		return nil, fmt.Errorf("kyc: webhook body: %w", err)
	}
	// The platform promises the body's id is the webhook-id it signed; a
	// body whose id differs is not the event that was signed for.
	if id := header.Get("webhook-id"); event.Id.String() != id {
		return nil, fmt.Errorf("%w: body id %s, webhook-id %s", ErrWebhookSignature, event.Id, id)
	}
	return &event, nil
}

// VerifyRequest reads a delivery (at most 1 MiB) and verifies it; it
// returns the raw body too.
func (v *WebhookVerifier) VerifyRequest(r *http.Request) (*kycapi.WebhookBody, []byte, error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxWebhookBody+1))
	if err != nil {
		return nil, nil, err
	}
	if len(body) > maxWebhookBody {
		return nil, nil, fmt.Errorf("%w: body over %d bytes", ErrWebhookSignature, maxWebhookBody)
	}
	event, err := v.Verify(body, r.Header)
	return event, body, err
}
