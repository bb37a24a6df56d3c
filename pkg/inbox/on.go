package inbox

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/event"
)

// Route is one registration of a consumer: the event types it handles,
// the consumer's own struct their data is decoded into, and what it does
// with them. Every consumer is made of routes (On), so what a service
// reads, its side of the event contracts, is derived from the same
// registrations that run (Reads) and cannot drift from them.
type Route struct {
	Types []string
	// Into is the zero value of the struct the data is decoded into.
	Into  any
	apply Handler
}

// On is the one way to consume: it handles events of the given types,
// decodes their data into T and applies it. Data that does not decode,
// and an invalid-input error from apply, are Permanent: a redelivery of
// the same event cannot fix them.
func On[T any](apply func(ctx context.Context, tx pgx.Tx, e event.Event, data T) error, types ...string) Route {
	var zero T
	return Route{Types: types, Into: zero, apply: func(ctx context.Context, tx pgx.Tx, e event.Event) error {
		var data T
		if err := json.Unmarshal(e.Data, &data); err != nil {
			return Permanent(fmt.Errorf("decode %s: %w", e.Type, err))
		}
		err := apply(ctx, tx, e, data)
		if ae, ok := apperr.As(err); ok && ae.Kind == apperr.KindInvalid {
			return Permanent(err)
		}
		return err
	}}
}

// Handle is a Handler for routes: an event goes to the first route that
// names its type; events no route names are skipped.
func Handle(routes ...Route) Handler {
	return func(ctx context.Context, tx pgx.Tx, e event.Event) error {
		for _, r := range routes {
			if slices.Contains(r.Types, e.Type) {
				return r.apply(ctx, tx, e)
			}
		}
		return nil
	}
}

// Subscription is a consumer group: the topics (short names) it reads
// and its routes. Batch, above 1, applies up to that many waiting events
// per transaction (Consumer.WithBatch); ApplyBatch, if set, applies such
// a batch in one call (Consumer.WithBatchHandler) and must have the
// routes' effect, event for event: the routes still apply an event alone
// (when a batch fails, and in HandlerOf's tests). Skip, if set, passes
// over the events it is true for before any transaction (Consumer.Skip).
type Subscription struct {
	Group      string
	Topics     []string
	Batch      int
	Routes     []Route
	ApplyBatch BatchHandler
	Skip       func(event.Event) bool
}

// Types are the event types the subscription's routes read.
func (s Subscription) Types() []string {
	var out []string
	for _, r := range s.Routes {
		out = append(out, r.Types...)
	}
	return out
}

// Reads is the consumer side of the event contracts of subs: each event
// type with the struct it is decoded into. Two routes reading one type
// into different structs are both listed, so both are held to the
// producer's schema.
func Reads(subs ...Subscription) []event.Read {
	var out []event.Read
	for _, s := range subs {
		for _, r := range s.Routes {
			for _, t := range r.Types {
				read := event.Read{Type: t, Into: r.Into}
				if !slices.ContainsFunc(out, func(x event.Read) bool {
					return x.Type == t && reflect.TypeOf(x.Into) == reflect.TypeOf(r.Into)
				}) {
					out = append(out, read)
				}
			}
		}
	}
	return out
}

// HandlerOf is the handler of the subscription called group in subs, nil
// when there is none: what a test feeds events to, exactly as they run.
func HandlerOf(subs []Subscription, group string) Handler {
	for _, s := range subs {
		if s.Group == group {
			return Handle(s.Routes...)
		}
	}
	return nil
}

// BatchHandlerOf is the batch handler of the subscription called group in
// subs, nil when there is none or it has none.
func BatchHandlerOf(subs []Subscription, group string) BatchHandler {
	for _, s := range subs {
		if s.Group == group {
			return s.ApplyBatch
		}
	}
	return nil
}
