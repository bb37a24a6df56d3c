// Package httpapi is the webhook service's transport: go-kit endpoints
// for every /api/v1/webhooks operation and their HTTP decoding.
package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/kycfield/kyc/pkg/kitserver"
	"github.com/kycfield/kyc/services/webhook/internal/webhook"
)

// Endpoints are the webhook operations, each typed by its request.
type Endpoints struct {
	Create     kitserver.Endpoint[createRequest]
	List       kitserver.Endpoint[webhook.Caller]
	Get        kitserver.Endpoint[idRequest]
	Update     kitserver.Endpoint[updateRequest]
	Delete     kitserver.Endpoint[idRequest]
	Rotate     kitserver.Endpoint[idRequest]
	Secret     kitserver.Endpoint[idRequest]
	Test       kitserver.Endpoint[idRequest]
	Deliveries kitserver.Endpoint[deliveriesRequest]
	Retry      kitserver.Endpoint[retryRequest]
	Recover    kitserver.Endpoint[recoverRequest]
}

type createRequest struct {
	who webhook.Caller
	in  webhook.CreateInput
}

type idRequest struct {
	who webhook.Caller
	id  string
}

type updateRequest struct {
	idRequest
	in webhook.UpdateInput
}

type deliveriesRequest struct {
	idRequest
	f webhook.DeliveryFilter
}

type retryRequest struct {
	idRequest
	deliveryID string
}

type recoverRequest struct {
	idRequest
	since *time.Time
}

// MakeEndpoints builds the endpoints with instrumentation.
func MakeEndpoints(svc *webhook.Service, in *kitserver.Instrumenter) Endpoints {
	one := func(msg string, status int, withSecret bool, f func(context.Context, idRequest) (webhook.Endpoint, error)) func(context.Context, idRequest) (kitserver.Result, error) {
		return func(ctx context.Context, r idRequest) (kitserver.Result, error) {
			e, err := f(ctx, r)
			if err != nil {
				return kitserver.Result{}, err
			}
			return kitserver.Result{Status: status, Message: msg, Data: endpointView(e, withSecret)}, nil
		}
	}
	return Endpoints{
		Create: kitserver.NewEndpoint(func(ctx context.Context, r createRequest) (kitserver.Result, error) {
			e, err := svc.Create(ctx, r.who, r.in)
			if err != nil {
				return kitserver.Result{}, err
			}
			return kitserver.Result{Status: http.StatusCreated, Message: "Webhook endpoint created; keep the secret, it is shown only now",
				Data: endpointView(e, true)}, nil
		}, in.Wrap("create_webhook")),
		List: kitserver.NewEndpoint(func(ctx context.Context, who webhook.Caller) (kitserver.Result, error) {
			es, err := svc.List(ctx, who)
			if err != nil {
				return kitserver.Result{}, err
			}
			out := make([]Endpoint, len(es))
			for i, e := range es {
				out[i] = endpointView(e, false)
			}
			return kitserver.Result{Message: "Webhook endpoints retrieved", Data: map[string]any{"webhooks": out}}, nil
		}, in.Wrap("list_webhooks")),
		Get: kitserver.NewEndpoint(one("Webhook endpoint retrieved", http.StatusOK, false, func(ctx context.Context, r idRequest) (webhook.Endpoint, error) {
			return svc.Get(ctx, r.who, r.id)
		}), in.Wrap("get_webhook")),
		Update: kitserver.NewEndpoint(func(ctx context.Context, r updateRequest) (kitserver.Result, error) {
			e, err := svc.Update(ctx, r.who, r.id, r.in)
			if err != nil {
				return kitserver.Result{}, err
			}
			return kitserver.Result{Message: "Webhook endpoint updated", Data: endpointView(e, false)}, nil
		}, in.Wrap("update_webhook")),
		Delete: kitserver.NewEndpoint(func(ctx context.Context, r idRequest) (kitserver.Result, error) {
			if err := svc.Delete(ctx, r.who, r.id); err != nil {
				return kitserver.Result{}, err
			}
			return kitserver.Result{Message: "Webhook endpoint deleted", Data: map[string]any{"id": r.id, "deleted": true}}, nil
		}, in.Wrap("delete_webhook")),
		Rotate: kitserver.NewEndpoint(one("Secret rotated; the previous one keeps signing for 24 hours", http.StatusOK, true,
			func(ctx context.Context, r idRequest) (webhook.Endpoint, error) { return svc.Rotate(ctx, r.who, r.id) }),
			in.Wrap("rotate_webhook_secret")),
		// Secret reveals the current secret, for the dashboard's "reveal"
		// button: a person who lost it need not rotate and break the
		// receiver's check for a day.
		Secret: kitserver.NewEndpoint(one("Webhook secret retrieved", http.StatusOK, true,
			func(ctx context.Context, r idRequest) (webhook.Endpoint, error) { return svc.Secret(ctx, r.who, r.id) }),
			in.Wrap("reveal_webhook_secret")),
		Test: kitserver.NewEndpoint(func(ctx context.Context, r idRequest) (kitserver.Result, error) {
			d, err := svc.SendTest(ctx, r.who, r.id)
			if err != nil {
				return kitserver.Result{}, err
			}
			return kitserver.Result{Status: http.StatusAccepted, Message: "Test event queued", Data: deliveryView(d)}, nil
		}, in.Wrap("test_webhook")),
		Deliveries: kitserver.NewEndpoint(listDeliveries(svc), in.Wrap("list_webhook_deliveries")),
		Retry: kitserver.NewEndpoint(func(ctx context.Context, r retryRequest) (kitserver.Result, error) {
			d, err := svc.Retry(ctx, r.who, r.id, r.deliveryID)
			if err != nil {
				return kitserver.Result{}, err
			}
			return kitserver.Result{Status: http.StatusAccepted, Message: "Delivery queued for a new attempt", Data: deliveryView(d)}, nil
		}, in.Wrap("retry_webhook_delivery")),
		Recover: kitserver.NewEndpoint(func(ctx context.Context, r recoverRequest) (kitserver.Result, error) {
			n, err := svc.Recover(ctx, r.who, r.id, r.since)
			if err != nil {
				return kitserver.Result{}, err
			}
			return kitserver.Result{Status: http.StatusAccepted, Message: "Failed deliveries queued for a new attempt",
				Data: map[string]any{"recovered": n}}, nil
		}, in.Wrap("recover_webhook")),
	}
}

func listDeliveries(svc *webhook.Service) func(context.Context, deliveriesRequest) (kitserver.Result, error) {
	return func(ctx context.Context, r deliveriesRequest) (kitserver.Result, error) {
		want := r.f.Limit
		r.f.Limit = want + 1 // one more tells whether there is a next page
		ds, err := svc.Deliveries(ctx, r.who, r.id, r.f)
		if err != nil {
			return kitserver.Result{}, err
		}
		page := map[string]any{"limit": want, "hasNext": len(ds) > want, "nextCursor": nil}
		if len(ds) > want {
			ds = ds[:want]
			page["nextCursor"] = ds[want-1].ID
		}
		out := make([]Delivery, len(ds))
		for i, d := range ds {
			out[i] = deliveryView(d)
		}
		return kitserver.Result{Message: "Deliveries retrieved", Data: map[string]any{"deliveries": out, "pagination": page}}, nil
	}
}
