package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/jsonbody"
	"github.com/kycfield/kyc/pkg/kitserver"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/services/webhook/internal/webhook"
)

const maxJSON = 64 << 10

// Register mounts the webhook routes on mux; protect requires an API-key
// principal signed by the gateway (which has checked the scope).
func Register(mux *http.ServeMux, e Endpoints, protect func(http.Handler, ...principal.Kind) http.Handler, log *slog.Logger) {
	handle := func(pattern string, h http.Handler) { mux.Handle(pattern, protect(h, principal.KindAPIKey)) }
	const base = "/api/v1/webhooks"
	handle("POST "+base, kitserver.NewHandler(e.Create, decodeCreate, log))
	handle("GET "+base, kitserver.NewHandler(e.List, func(ctx context.Context, _ *http.Request) (webhook.Caller, error) {
		return caller(ctx), nil
	}, log))
	handle("GET "+base+"/{id}", kitserver.NewHandler(e.Get, decodeID, log))
	handle("PATCH "+base+"/{id}", kitserver.NewHandler(e.Update, decodeUpdate, log))
	handle("DELETE "+base+"/{id}", kitserver.NewHandler(e.Delete, decodeID, log))
	handle("POST "+base+"/{id}/rotate-secret", kitserver.NewHandler(e.Rotate, decodeID, log))
	handle("GET "+base+"/{id}/secret", kitserver.NewHandler(e.Secret, decodeID, log))
	handle("POST "+base+"/{id}/test", kitserver.NewHandler(e.Test, decodeID, log))
	handle("GET "+base+"/{id}/deliveries", kitserver.NewHandler(e.Deliveries, decodeDeliveries, log))
	handle("POST "+base+"/{id}/deliveries/{deliveryId}/retry", kitserver.NewHandler(e.Retry, decodeRetry, log))
	handle("POST "+base+"/{id}/recover", kitserver.NewHandler(e.Recover, decodeRecover, log))
}

func caller(ctx context.Context) webhook.Caller {
	p, _ := principal.From(ctx)
	return webhook.Caller{OrgID: p.OrgID, Env: string(p.Env)}
}

func decodeID(ctx context.Context, r *http.Request) (idRequest, error) {
	return idRequest{who: caller(ctx), id: r.PathValue("id")}, nil
}

func decodeCreate(ctx context.Context, r *http.Request) (createRequest, error) {
	req := createRequest{who: caller(ctx)}
	b, err := jsonbody.ReadRaw(r, maxJSON)
	if err != nil {
		return req, err
	}
	req.in, err = DecodeCreate(b)
	return req, err
}

// DecodeCreate reads POST /webhooks' body; unknown and mistyped members
// are validation errors naming the field.
func DecodeCreate(b []byte) (webhook.CreateInput, error) {
	var in webhook.CreateInput
	err := jsonbody.Decode(b, &in, readOnly...)
	return in, err
}

var readOnly = []jsonbody.Refused{
	{Field: "id", Message: "is read-only"}, {Field: "secret", Message: "is generated; use rotate-secret to change it"},
	{Field: "createdAt", Message: "is read-only"}, {Field: "updatedAt", Message: "is read-only"},
	{Field: "disabledReason", Message: "is read-only"},
}

func decodeUpdate(ctx context.Context, r *http.Request) (updateRequest, error) {
	req := updateRequest{idRequest: idRequest{who: caller(ctx), id: r.PathValue("id")}}
	b, err := jsonbody.ReadRaw(r, maxJSON)
	if err != nil {
		return req, err
	}
	req.in, err = DecodeUpdate(b)
	return req, err
}

// DecodeUpdate reads PATCH /webhooks/{id}'s body.
func DecodeUpdate(b []byte) (webhook.UpdateInput, error) {
	var in webhook.UpdateInput
	err := jsonbody.Decode(b, &in, readOnly...)
	return in, err
}

func decodeDeliveries(ctx context.Context, r *http.Request) (deliveriesRequest, error) {
	q := r.URL.Query()
	req := deliveriesRequest{idRequest: idRequest{who: caller(ctx), id: r.PathValue("id")},
		f: webhook.DeliveryFilter{Status: q.Get("status"), EventType: q.Get("eventType"), Before: q.Get("cursor"), Limit: 20}}
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 100 {
			return req, apperr.Validation(apperr.Detail{Field: "limit", Message: "must be an integer from 1 to 100"})
		}
		req.f.Limit = n
	}
	return req, nil
}

func decodeRetry(ctx context.Context, r *http.Request) (retryRequest, error) {
	return retryRequest{idRequest: idRequest{who: caller(ctx), id: r.PathValue("id")}, deliveryID: r.PathValue("deliveryId")}, nil
}

func decodeRecover(ctx context.Context, r *http.Request) (recoverRequest, error) {
	req := recoverRequest{idRequest: idRequest{who: caller(ctx), id: r.PathValue("id")}}
	b, err := jsonbody.ReadRaw(r, maxJSON)
	if err != nil {
		return req, err
	}
	var in struct {
		Since *string `json:"since"`
	}
	if err := jsonbody.Decode(b, &in); err != nil {
		return req, err
	}
	if in.Since != nil {
		t, err := time.Parse(time.RFC3339Nano, *in.Since)
		if err != nil {
			return req, apperr.Validation(apperr.Detail{Field: "since", Message: "must be an ISO 8601 time with a zone, e.g. 2026-11-23T08:00:00Z"})
		}
		req.since = &t
	}
	return req, nil
}
