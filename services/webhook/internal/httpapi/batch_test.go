package httpapi_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/eventually"
	"github.com/kycfield/kyc/pkg/ids"
	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/services/webhook/internal/events"
	"github.com/kycfield/kyc/services/webhook/internal/webhook"
)

// visitEvents are the verification events of one address's visit with a
// re-visit and a result held for review (as visit publishes them), then
// the outcome, with the type of the stage event each one makes ("" none).
// They happen 10 µs apart from a whole millisecond, so that the times the
// stage events are stored at (a millisecond after the customer's latest
// message) fall alike for every visit.
func visitEvents(t *testing.T, who tenant, cus string) ([]event.Event, []string) {
	t.Helper()
	adr := ids.New("adr")
	at := time.Now().UTC().Truncate(time.Millisecond)
	steps := []struct{ status, previous, stage string }{
		{"ASSIGNED", "PENDING", webhook.TypeAddressAssigned},
		{"IN_PROGRESS", "ASSIGNED", webhook.TypeAddressCheckedIn},
		{"ASSIGNED", "IN_PROGRESS", webhook.TypeAddressAttempted},
		{"IN_PROGRESS", "ASSIGNED", webhook.TypeAddressCheckedIn},
		{"IN_REVIEW", "IN_PROGRESS", ""},
		{"VERIFIED", "IN_REVIEW", webhook.TypeAddressVerified},
	}
	var out []event.Event
	var stages []string
	for i, s := range steps {
		e, err := event.New("verification.address.updated", who.org, who.env, transition(cus, adr, s.status, s.previous, i+2))
		if err != nil {
			t.Fatal(err)
		}
		e.Time = at.Add(time.Duration(i) * 10 * time.Microsecond)
		out, stages = append(out, e), append(stages, s.stage)
	}
	e, err := event.New("verification.completed", who.org, who.env, completed(cus, adr))
	if err != nil {
		t.Fatal(err)
	}
	e.Time = at.Add(time.Duration(len(steps)) * 10 * time.Microsecond)
	return append(out, e), append(stages, "")
}

// stored is what the consumer stored for a customer, in the order the
// events API and the dispatcher follow: each message's type, the
// sequence of the first address it reports (a completed event's comes
// from the address updates before it), and its deliveries' states.
type stored struct {
	Type     string
	Sequence float64
	Parked   int // deliveries waiting behind an earlier stage event
	Due      int
}

func (f *fixture) stored(cus string) []stored {
	f.t.Helper()
	rows, err := f.pool.Query(context.Background(), `SELECT m.event_type, m.body,
			count(d.id) FILTER (WHERE d.next_attempt_at IS NULL), count(d.id) FILTER (WHERE d.next_attempt_at IS NOT NULL)
		FROM messages m LEFT JOIN deliveries d ON d.message_id = m.id
		WHERE m.customer_id = $1 GROUP BY m.id ORDER BY m.created_at, m.id`, cus)
	if err != nil {
		f.t.Fatal(err)
	}
	defer rows.Close()
	var out []stored
	for rows.Next() {
		var s stored
		var body []byte
		if err := rows.Scan(&s.Type, &body, &s.Parked, &s.Due); err != nil {
			f.t.Fatal(err)
		}
		var b struct {
			Data struct {
				Sequence  float64
				Addresses []struct{ Sequence float64 }
			}
		}
		_ = json.Unmarshal(body, &b)
		s.Sequence = b.Data.Sequence
		if len(b.Data.Addresses) > 0 {
			s.Sequence = b.Data.Addresses[0].Sequence
		}
		out = append(out, s)
	}
	return out
}

// A batch of a visit's events, applied by the batch handler in one
// transaction, stores what applying them one at a time stores: the same
// messages in the same order (each stage event after its source), the
// completed event with the sequence the address reached in the same
// batch, stage deliveries parked behind the first; a replayed batch, or
// one with an event twice, stores nothing more; and the dispatcher then
// sends each customer's stage events in order, once each.
func TestBatchStoresWhatOneAtATimeStores(t *testing.T) {
	t.Parallel()
	f := setup(t, options{})
	f.stop() // the schedule is compared before anything is sent
	who := newTenant()
	rc := newReceiver(t, nil)
	f.endpoint(who, rc.URL, map[string]any{"events": webhook.Staged})
	all := newReceiver(t, nil)
	f.endpoint(who, all.URL, nil)
	subs := events.Subscriptions(f.store.Within, "https://api.example.com")
	batcher := inbox.New("webhook.verification", nil, f.pool, logging.Discard(), inbox.HandlerOf(subs, "webhook.verification")).
		WithBatchHandler(inbox.BatchHandlerOf(subs, "webhook.verification"))

	one, batched := ids.New("cus"), ids.New("cus")
	oneEvents, stageTypes := visitEvents(t, who, one)
	for _, e := range oneEvents {
		if err := f.consumer.Apply(context.Background(), e); err != nil {
			t.Fatal(err)
		}
	}
	batchEvents, _ := visitEvents(t, who, batched)
	twice := append(slices.Clone(batchEvents[:3]), batchEvents[2]) // a producer's retry inside the batch
	if err := batcher.ApplyBatch(context.Background(), twice); err != nil {
		t.Fatal(err)
	}
	if err := batcher.ApplyBatch(context.Background(), batchEvents); err != nil { // the first three again: a redelivery
		t.Fatal(err)
	}
	want := f.stored(one)
	if got := f.stored(batched); !slices.Equal(got, want) {
		t.Fatalf("batched:\n%v\none at a time:\n%v", got, want)
	}
	// Five updates (the one held for review is not stored), the outcome
	// and five stage events.
	if len(want) != 11 || !slices.ContainsFunc(want, func(s stored) bool { return s.Type == "verification.completed" && s.Sequence == 7 }) {
		t.Fatalf("stored one at a time: %v", want)
	}
	before := f.count(`SELECT count(*) FROM deliveries`)
	if err := batcher.ApplyBatch(context.Background(), batchEvents); err != nil {
		t.Fatal(err)
	}
	if n := f.count(`SELECT count(*) FROM deliveries`); n != before {
		t.Fatalf("a replayed batch made %d deliveries more", n-before)
	}

	f.start()
	var wantIDs []string
	for _, es := range [][]event.Event{oneEvents, batchEvents} {
		for i, e := range es {
			if stageTypes[i] != "" {
				wantIDs = append(wantIDs, events.StageID(e.ID, stageTypes[i]))
			}
		}
	}
	eventually.True(t, patience, "every stage event", func() bool { return len(rc.requests()) >= len(wantIDs) })
	got := rc.ids()
	for _, w := range [][]string{wantIDs[:len(wantIDs)/2], wantIDs[len(wantIDs)/2:]} {
		var order []string
		for _, id := range got {
			if slices.Contains(w, id) {
				order = append(order, id)
			}
		}
		if !slices.Equal(order, w) {
			t.Fatalf("a customer's stage events arrived as %v, want %v", order, w)
		}
	}
	if len(got) != len(wantIDs) {
		t.Fatalf("%d stage requests, want %d", len(got), len(wantIDs))
	}
}
