package webhook_test

import (
	"context"
	"encoding/base64"
	"testing"
	"time"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/keyring"
	"github.com/kycfield/kyc/services/webhook/internal/webhook"
)

// pageStore answers every list with limit events, so a next cursor is
// always made.
type pageStore struct{ got *webhook.EventQuery }

func (s pageStore) Events(_ context.Context, _ webhook.Caller, q webhook.EventQuery, _ time.Time) ([]webhook.Event, error) {
	*s.got = q
	out := make([]webhook.Event, q.Limit)
	for i := range out {
		out[i] = webhook.Event{ID: "e", CreatedAt: time.Unix(1700000000, 0), Body: []byte(`{}`)}
	}
	return out, nil
}

func (pageStore) Event(context.Context, webhook.Caller, string, time.Time) (webhook.Event, error) {
	return webhook.Event{}, webhook.ErrEventNotFound
}

func newEvents(t testing.TB) (*webhook.Events, *webhook.EventQuery) {
	keys, err := keyring.Parse("k1:"+base64.StdEncoding.EncodeToString(make([]byte, 32)), "k1")
	if err != nil {
		t.Fatal(err)
	}
	got := &webhook.EventQuery{}
	return webhook.NewEvents(pageStore{got}, keys, time.Now), got
}

// Whatever the query, the answer is a page or a validation error, and
// the store is only ever asked for 2 to 101 events (one more than a page)
// of a known type; a cursor it accepts is one it made.
func FuzzEventQuery(f *testing.F) {
	evs, _ := newEvents(f)
	who := webhook.Caller{OrgID: "org_1", Env: "test"}
	p, err := evs.List(context.Background(), who, webhook.RawEventQuery{})
	if err != nil {
		f.Fatal(err)
	}
	f.Add("verification.completed", "cus_0123456789abcdef", "20", p.Next)
	f.Add("", "", "100", "AAAA")
	f.Add("*", "cus_", "0", "")
	f.Fuzz(func(t *testing.T, typ, customer, limit, cursor string) {
		evs, got := newEvents(t)
		_, err := evs.List(context.Background(), who, webhook.RawEventQuery{Type: &typ, CustomerID: &customer, Limit: &limit, Cursor: &cursor})
		if err != nil {
			if e, ok := apperr.As(err); !ok || e.Kind != apperr.KindInvalid || e.Code != "VALIDATION_ERROR" {
				t.Fatalf("%v is not a validation error", err)
			}
			return
		}
		if got.Limit < 2 || got.Limit > webhook.MaxEventLimit+1 {
			t.Fatalf("asked the store for %d events", got.Limit)
		}
		if cursor != "" && got.After == nil {
			t.Fatal("a cursor was accepted and ignored")
		}
	})
}
