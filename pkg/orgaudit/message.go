package orgaudit

import (
	"context"

	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/outbox"
)

// Message builds ctx's caller's action as an outbox message on topic
// (the full, prefixed name of Topic) without writing it, so that a
// service can add it to the outbox in the same batch as the change's own
// event: one round trip for both on a hot path such as creating a
// customer.
func Message(ctx context.Context, topic, action, target, outcome string, details map[string]any) (outbox.Message, error) {
	a, p, err := Of(ctx, action, target, outcome, details)
	if err != nil {
		return outbox.Message{}, err
	}
	e, err := event.New(Type, p.OrgID, string(p.Env), a)
	if err != nil {
		return outbox.Message{}, err
	}
	return outbox.Message{Topic: topic, Key: p.OrgID, Event: e}, nil
}
