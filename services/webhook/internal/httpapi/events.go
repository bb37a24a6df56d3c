package httpapi

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"

	"github.com/kycfield/kyc/pkg/kitserver"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/services/webhook/internal/webhook"
)

// EventEndpoints are the events API's operations.
type EventEndpoints struct {
	List kitserver.Endpoint[eventsRequest]
	Get  kitserver.Endpoint[idRequest]
}

type eventsRequest struct {
	who webhook.Caller
	raw webhook.RawEventQuery
}

// EventList is the data of GET /events. Each event is the stored webhook
// body as it is, so a receiver's handler reads both alike.
type EventList struct {
	Events     []json.RawMessage `json:"events"`
	NextCursor *string           `json:"nextCursor"`
}

// MakeEventEndpoints builds the events endpoints with instrumentation.
func MakeEventEndpoints(evs *webhook.Events, in *kitserver.Instrumenter) EventEndpoints {
	return EventEndpoints{
		List: kitserver.NewEndpoint(func(ctx context.Context, r eventsRequest) (kitserver.Result, error) {
			page, err := evs.List(ctx, r.who, r.raw)
			if err != nil {
				return kitserver.Result{}, err
			}
			out := EventList{Events: make([]json.RawMessage, len(page.Events))}
			for i, e := range page.Events {
				out.Events[i] = e.Body
			}
			if page.Next != "" {
				out.NextCursor = &page.Next
			}
			return kitserver.Result{Message: "Events retrieved", Data: out}, nil
		}, in.Wrap("list_events")),
		Get: kitserver.NewEndpoint(func(ctx context.Context, r idRequest) (kitserver.Result, error) {
			e, err := evs.Get(ctx, r.who, r.id)
			if err != nil {
				return kitserver.Result{}, err
			}
			return kitserver.Result{Message: "Event retrieved", Data: json.RawMessage(e.Body)}, nil
		}, in.Wrap("get_event")),
	}
}

// RegisterEvents mounts GET /api/v1/events and /api/v1/events/{id}.
func RegisterEvents(mux *http.ServeMux, e EventEndpoints, protect func(http.Handler, ...principal.Kind) http.Handler, log *slog.Logger) {
	mux.Handle("GET /api/v1/events", protect(kitserver.NewHandler(e.List, decodeEvents, log), principal.KindAPIKey))
	mux.Handle("GET /api/v1/events/{id}", protect(kitserver.NewHandler(e.Get, decodeID, log), principal.KindAPIKey))
}

func decodeEvents(ctx context.Context, r *http.Request) (eventsRequest, error) {
	q := r.URL.Query()
	param := func(name string) *string {
		if !q.Has(name) {
			return nil
		}
		v := q.Get(name)
		return &v
	}
	return eventsRequest{who: caller(ctx), raw: webhook.RawEventQuery{Type: param("type"), CustomerID: param("customerId"),
		Limit: param("limit"), Cursor: param("cursor")}}, nil
}
