package webhook

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/ids"
	"github.com/kycfield/kyc/services/webhook/internal/signing"
)

// Repository keeps endpoints, messages and deliveries.
type Repository interface {
	// Every change below records the caller's audit in its transaction,
	// and only when it happens.

	// Create records e unless its organization and environment already
	// have MaxEndpoints, atomically (concurrent creates never go over).
	Create(ctx context.Context, e Endpoint, audit Audit) error
	List(ctx context.Context, who Caller) ([]Endpoint, error)
	Get(ctx context.Context, who Caller, id string) (Endpoint, error)
	// Reveal is Get for the endpoint's secret: the read and its audit are
	// one transaction, so no secret leaves unrecorded.
	Reveal(ctx context.Context, who Caller, id string, audit Audit) (Endpoint, error)
	// Update runs fn on the endpoint in a transaction holding its row and
	// saves what fn leaves, unless fn fails.
	Update(ctx context.Context, who Caller, id string, fn func(*Endpoint) error, audit Audit) (Endpoint, error)
	Delete(ctx context.Context, who Caller, id string, audit Audit) error
	// Enqueue records m and a delivery of it to each endpoint, due now.
	Enqueue(ctx context.Context, m Message, endpointIDs []string, audit Audit) ([]Delivery, error)
	Deliveries(ctx context.Context, who Caller, endpointID string, f DeliveryFilter) ([]Delivery, error)
	// Retry makes a delivery due now as a manual attempt.
	Retry(ctx context.Context, who Caller, endpointID, deliveryID string, audit Audit) (Delivery, error)
	// Recover makes every failed delivery (retrying or exhausted) created
	// since since due now as a manual attempt, and counts them (the count
	// is added to the audit's details as "recovered").
	Recover(ctx context.Context, who Caller, endpointID string, since time.Time, audit Audit) (int, error)
}

// DeliveryFilter narrows and pages the delivery log (newest first).
type DeliveryFilter struct {
	Status, EventType string
	Limit             int
	// Before is a cursor: only deliveries older than this delivery id.
	Before string
}

// Service holds the webhook use cases.
type Service struct {
	repo   Repository
	policy URLPolicy
	now    func() time.Time
}

// NewService builds a Service.
func NewService(repo Repository, policy URLPolicy, now func() time.Time) *Service {
	return &Service{repo: repo, policy: policy, now: now}
}

// Create registers an endpoint with a fresh secret.
func (s *Service) Create(ctx context.Context, who Caller, in CreateInput) (Endpoint, error) {
	e, err := CheckCreate(ctx, s.policy, in, who.Env)
	if err != nil {
		return Endpoint{}, err
	}
	now := s.now().UTC()
	e.ID, e.OrgID, e.Env, e.Secret, e.CreatedAt, e.UpdatedAt = ids.New("whe"), who.OrgID, who.Env, signing.NewSecret(), now, now
	if err := s.repo.Create(ctx, e, Audit{Action: ActionCreate, Target: e.ID, Details: map[string]any{"events": eventsOf(e)}}); err != nil {
		return Endpoint{}, err
	}
	return e, nil
}

// eventsOf is what e subscribes to, for the audit log ("*" for all).
func eventsOf(e Endpoint) []string {
	if len(e.Events) == 0 {
		return []string{AllEvents}
	}
	return e.Events
}

// List returns the caller's endpoints, oldest first.
func (s *Service) List(ctx context.Context, who Caller) ([]Endpoint, error) {
	return s.repo.List(ctx, who)
}

// Get returns one of the caller's endpoints.
func (s *Service) Get(ctx context.Context, who Caller, id string) (Endpoint, error) {
	if !ids.Valid("whe", id) {
		return Endpoint{}, ErrNotFound
	}
	return s.repo.Get(ctx, who, id)
}

// Update changes url, events, description or enabled.
func (s *Service) Update(ctx context.Context, who Caller, id string, in UpdateInput) (Endpoint, error) {
	if !ids.Valid("whe", id) {
		return Endpoint{}, ErrNotFound
	}
	return s.repo.Update(ctx, who, id, func(e *Endpoint) error {
		if err := ApplyUpdate(ctx, s.policy, e, in); err != nil {
			return err
		}
		e.UpdatedAt = s.now().UTC()
		return nil
	}, Audit{Action: ActionUpdate, Target: id, Details: map[string]any{"fields": updatedFields(in)}})
}

// Delete removes an endpoint; nothing more is delivered to it.
func (s *Service) Delete(ctx context.Context, who Caller, id string) error {
	if !ids.Valid("whe", id) {
		return ErrNotFound
	}
	return s.repo.Delete(ctx, who, id, Audit{Action: ActionDelete, Target: id})
}

// Rotate gives the endpoint a new secret; the old one keeps signing
// beside it for RotationOverlap, so receivers can switch without losing
// a delivery.
func (s *Service) Rotate(ctx context.Context, who Caller, id string) (Endpoint, error) {
	if !ids.Valid("whe", id) {
		return Endpoint{}, ErrNotFound
	}
	return s.repo.Update(ctx, who, id, func(e *Endpoint) error {
		now := s.now().UTC()
		until := now.Add(RotationOverlap)
		e.PreviousSecret, e.PreviousUntil, e.Secret, e.UpdatedAt = e.Secret, &until, signing.NewSecret(), now
		return nil
	}, Audit{Action: ActionRotateSecret, Target: id})
}

// Secret returns one of the caller's endpoints with its secret, for the
// dashboard's "reveal" button; the read is audited.
func (s *Service) Secret(ctx context.Context, who Caller, id string) (Endpoint, error) {
	if !ids.Valid("whe", id) {
		return Endpoint{}, ErrNotFound
	}
	return s.repo.Reveal(ctx, who, id, Audit{Action: ActionSecretRead, Target: id})
}

// TestData is the data of a webhook.test event.
type TestData struct {
	EndpointID string `json:"endpointId"`
	Message    string `json:"message"`
}

// SendTest queues a webhook.test event for the endpoint alone.
func (s *Service) SendTest(ctx context.Context, who Caller, id string) (Delivery, error) {
	e, err := s.Get(ctx, who, id)
	if err != nil {
		return Delivery{}, err
	}
	if !e.Enabled {
		return Delivery{}, errDisabled
	}
	m, err := NewMessage(uuid.NewString(), TypeTest, who.OrgID, who.Env, s.now(),
		TestData{EndpointID: e.ID, Message: "This is a test event from the KYC platform."})
	if err != nil {
		return Delivery{}, apperr.Internal(err)
	}
	ds, err := s.repo.Enqueue(ctx, m, []string{e.ID}, Audit{Action: ActionTest, Target: e.ID, Details: map[string]any{"eventId": m.ID}})
	if err != nil {
		return Delivery{}, err
	}
	return ds[0], nil
}

// Deliveries pages the endpoint's delivery log.
func (s *Service) Deliveries(ctx context.Context, who Caller, id string, f DeliveryFilter) ([]Delivery, error) {
	if _, err := s.Get(ctx, who, id); err != nil {
		return nil, err
	}
	var ck apperr.Checker
	if f.Status != "" && !slices.Contains(DeliveryStatuses, f.Status) {
		ck.Fail("status", "must be one of pending, retrying, succeeded, exhausted")
	}
	if f.EventType != "" && !slices.Contains(append([]string{TypeTest}, Subscribable...), f.EventType) {
		ck.Fail("eventType", "must be an event type")
	}
	if f.Before != "" && !ids.Valid("dlv", f.Before) {
		ck.Fail("cursor", "is not a cursor of this list")
	}
	if err := ck.Err(); err != nil {
		return nil, err
	}
	return s.repo.Deliveries(ctx, who, id, f)
}

// Retry resends one delivery now, whatever its status.
func (s *Service) Retry(ctx context.Context, who Caller, id, deliveryID string) (Delivery, error) {
	e, err := s.Get(ctx, who, id)
	if err != nil {
		return Delivery{}, err
	}
	if !ids.Valid("dlv", deliveryID) {
		return Delivery{}, ErrDeliveryNotFound
	}
	if !e.Enabled {
		return Delivery{}, errDisabled
	}
	return s.repo.Retry(ctx, who, id, deliveryID, Audit{Action: ActionRetry, Target: deliveryID, Details: map[string]any{"endpointId": id}})
}

// Recover resends now every delivery to the endpoint that failed (is
// retrying or exhausted) and was created at or after since.
func (s *Service) Recover(ctx context.Context, who Caller, id string, since *time.Time) (int, error) {
	e, err := s.Get(ctx, who, id)
	if err != nil {
		return 0, err
	}
	if since == nil {
		return 0, apperr.Validation(apperr.Detail{Field: "since", Message: "is required, an ISO 8601 time"})
	}
	if since.After(s.now()) {
		return 0, apperr.Validation(apperr.Detail{Field: "since", Message: "must not be in the future"})
	}
	if !e.Enabled {
		return 0, errDisabled
	}
	return s.repo.Recover(ctx, who, id, *since, Audit{Action: ActionRecover, Target: id,
		Details: map[string]any{"since": since.UTC().Format(time.RFC3339)}})
}

// Body is the JSON body of every delivery.
type Body struct {
	ID          string `json:"id"`
	Type        string `json:"type"`
	CreatedAt   string `json:"createdAt"`
	Environment string `json:"environment"`
	Data        any    `json:"data"`
}

// NewMessage renders an event as the body every attempt will send.
func NewMessage(id, typ, orgID, env string, at time.Time, data any) (Message, error) {
	b, err := json.Marshal(Body{ID: id, Type: typ, CreatedAt: at.UTC().Format("2006-01-02T15:04:05.000Z"), Environment: env, Data: data})
	if err != nil {
		return Message{}, fmt.Errorf("webhook: body of %s: %w", typ, err)
	}
	return Message{ID: id, OrgID: orgID, Env: env, Type: typ, Body: b, CreatedAt: at.UTC()}, nil
}
