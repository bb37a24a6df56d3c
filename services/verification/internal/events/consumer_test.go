package events_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/ids"
	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/pkg/objstore/pending"
	"github.com/kycfield/kyc/pkg/outbox"
	"github.com/kycfield/kyc/pkg/pgtest"
	"github.com/kycfield/kyc/services/verification/internal/events"
	"github.com/kycfield/kyc/services/verification/internal/postgres"
	"github.com/kycfield/kyc/services/verification/internal/verification"
	"github.com/kycfield/kyc/services/verification/internal/verification/view"
	"github.com/kycfield/kyc/services/verification/migrations"
)

type fixture struct {
	pool    *pgxpool.Pool
	store   *postgres.Store
	sandbox *verification.Service
	handle  inbox.Handler
	inbox   *inbox.Consumer
	orgID   string
	context context.Context
}

func setup(t *testing.T) fixture {
	t.Helper()
	pool, _ := pgtest.NewDB(t, migrations.Set(), outbox.Migration(), inbox.Migration(), pending.Migration())
	store := postgres.New(pool, "verification-events", events.Publisher{View: view.Renderer{BaseURL: "https://api.example.com"}}.Of)
	svc := verification.NewService(store, time.Now, verification.Sandbox{Delay: 0,
		Photos: map[string]int64{"building_front": 1000, "street_view": 900, "landmark": 800}})
	h := inbox.HandlerOf(events.Subscriptions(svc, store.Within), "verification.customers")
	return fixture{pool: pool, store: store, sandbox: svc, handle: h, orgID: ids.New("org"), context: context.Background(),
		inbox: inbox.New("verification.customers", nil, pool, logging.Discard(), h)}
}

// addr is an address as the customer context's events carry it.
type addr struct {
	ID           string `json:"id"`
	StreetNumber string `json:"streetNumber,omitempty"`
	StreetName   string `json:"streetName"`
	Landmark     string `json:"landmark,omitempty"`
	City         string `json:"city"`
	State        string `json:"state"`
	Country      string `json:"country"`
	Notes        string `json:"notes,omitempty"`
	Status       string `json:"status"`
}

func newAddr(notes string) addr {
	return addr{ID: ids.New("adr"), StreetNumber: "12", StreetName: "Adeola Odeku Street", City: "Victoria Island",
		State: "Lagos", Country: "Nigeria", Notes: notes, Status: "PENDING"}
}

// customerEvent is a customer-events event shaped like the customer
// context's CustomerEvent (the fields this context reads, and some it
// does not).
func (f fixture) customerEvent(t *testing.T, typ, env, customerID, firstName string, addrs []addr, added *addr) event.Event {
	t.Helper()
	created := time.Now().Add(-time.Hour).UTC()
	data := map[string]any{"customerId": customerID, "customer": map[string]any{
		"id": customerID, "firstName": firstName, "lastName": "Okafor", "phone": "+2348031234567", "email": "ngozi@example.com",
		"loanId": "LN-1", "loanType": "PERSONAL", "status": "PENDING", "addresses": addrs, "createdAt": created,
		"documents": []map[string]any{{"documentType": "ID_CARD", "fileName": "id.jpg", "fileSize": 1024}}}}
	if added != nil {
		data["address"] = added
	}
	if typ == events.TypeCustomerDeleted {
		data["deletedAt"] = time.Now().UTC().Format(time.RFC3339)
	}
	e, err := event.New(typ, f.orgID, env, data)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// direct runs the handler itself in a transaction of its own, as a
// redelivery that the inbox did not catch would (another consumer group
// name, a restored database, a republished event with a new id).
func (f fixture) direct(t *testing.T, e event.Event) {
	t.Helper()
	if err := pgx.BeginFunc(f.context, f.pool, func(tx pgx.Tx) error { return f.handle(f.context, tx, e) }); err != nil {
		t.Fatalf("%s: %v", e.Type, err)
	}
}

func (f fixture) apply(t *testing.T, e event.Event) {
	t.Helper()
	if err := f.inbox.Apply(f.context, e); err != nil {
		t.Fatalf("%s: %v", e.Type, err)
	}
}

// state is everything the consumer may change, row by row as JSON, minus
// the columns named in skip ("table.column").
func (f fixture) state(t *testing.T, skip ...string) string {
	t.Helper()
	var b strings.Builder
	for _, q := range []struct{ table, order string }{
		{"cases", "customer_id"}, {"jobs", "address_id"}, {"photos", "id"}, {"case_counts", "org_id, env, status"},
		{"turnaround", "org_id, env"}, {"outbox", "id"},
	} {
		minus := ""
		for _, s := range skip {
			if table, col, _ := strings.Cut(s, "."); table == q.table {
				minus += " - '" + col + "'"
			}
		}
		rows, err := f.pool.Query(f.context, fmt.Sprintf(`SELECT (to_jsonb(t)%s)::text FROM %s t ORDER BY %s`, minus, q.table, q.order))
		if err != nil {
			t.Fatal(err)
		}
		lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s (%d):\n%s\n", q.table, len(lines), strings.Join(lines, "\n"))
	}
	return b.String()
}

// TestEveryCustomerEventAppliedTwiceChangesNothingTheSecondTime replays
// each event the moment after it was applied, through the inbox (same
// event id: a redelivery) and through the handler itself (the use cases
// must be idempotent on their own), then replays the whole stream again
// after the customer's deletion.
func TestEveryCustomerEventAppliedTwiceChangesNothingTheSecondTime(t *testing.T) {
	t.Parallel()
	f := setup(t)
	for _, env := range []string{verification.EnvTest, verification.EnvLive} {
		t.Run(env, func(t *testing.T) {
			cid := ids.New("cus")
			a1, a2, a3 := newAddr(""), newAddr("Blue gate. SANDBOX_STALL"), newAddr("")
			stream := []event.Event{
				f.customerEvent(t, events.TypeCustomerCreated, env, cid, "Ngozi", []addr{a1, a2}, nil),
				f.customerEvent(t, events.TypeAddressAdded, env, cid, "Ngozi", []addr{a1, a2, a3}, &a3),
				f.customerEvent(t, events.TypeCustomerUpdated, env, cid, "Chiamaka", []addr{a1, a2, a3}, nil),
				f.customerEvent(t, events.TypeCustomerDeleted, env, cid, "Chiamaka", []addr{a1, a2, a3}, nil),
			}
			// What each step leaves for this customer: its jobs (status and
			// sequence), its events on the outbox, its name, whether it is
			// deleted, and the environment's counters. Before the deletion
			// the sandbox runs: in test, two addresses are verified (7
			// events) and the stalled one stays ASSIGNED, so the deletion
			// cancels that one only; in live nothing moves, and it cancels
			// all three.
			want := []step{
				{"PENDING 1,PENDING 1", 2, "Ngozi", false, 1},
				{"PENDING 1,PENDING 1,PENDING 1", 3, "Ngozi", false, 1},
				{"PENDING 1,PENDING 1,PENDING 1", 3, "Chiamaka", false, 1},
				{"CANCELLED 2,CANCELLED 2,CANCELLED 2", 6, "Chiamaka", true, 0},
			}
			if env == verification.EnvTest {
				want[3] = step{"VERIFIED 4,CANCELLED 3,VERIFIED 4", 11, "Chiamaka", true, 0}
			}
			for i, e := range stream {
				if e.Type == events.TypeCustomerDeleted {
					if _, err := f.sandbox.RunSandbox(f.context, 10); err != nil {
						t.Fatal(err)
					}
				}
				f.apply(t, e)
				f.check(t, env, cid, want[i])
				once, onceButUpdatedAt := f.state(t), f.state(t, "cases.updated_at")
				f.apply(t, e)
				if twice := f.state(t); twice != once {
					t.Fatalf("%s redelivered through the inbox changed the state:\nonce:\n%s\ntwice:\n%s", e.Type, once, twice)
				}
				// The handler itself: customer.updated rewrites the case's
				// updated_at (this context's own bookkeeping, shown nowhere);
				// nothing else may move.
				f.direct(t, e)
				if again := f.state(t, "cases.updated_at"); again != onceButUpdatedAt {
					t.Fatalf("%s applied again by the handler changed the state:\nonce:\n%s\nagain:\n%s", e.Type, onceButUpdatedAt, again)
				}
			}
			// The whole stream again, after the deletion, in order, as a
			// consumer starting over from the topic's first offset would.
			end := f.state(t, "cases.updated_at")
			for _, e := range stream {
				f.direct(t, e)
			}
			if got := f.state(t, "cases.updated_at"); got != end {
				t.Fatalf("replaying the stream after the deletion changed the state:\nbefore:\n%s\nafter:\n%s", end, got)
			}
			if _, err := f.store.Case(f.context, f.orgID, env, cid); !apperr.IsCode(err, apperr.CodeNotFound) {
				t.Fatalf("deleted case read: %v", err)
			}
		})
	}
}

type step struct {
	jobs      string
	events    int
	firstName string
	deleted   bool
	total     int64
}

func (f fixture) check(t *testing.T, env, cid string, want step) {
	t.Helper()
	var got step
	err := f.pool.QueryRow(f.context, `SELECT
			(SELECT string_agg(status || ' ' || sequence, ',' ORDER BY position) FROM jobs WHERE customer_id = $1),
			(SELECT count(*) FROM outbox WHERE msg_key = $1),
			first_name, deleted_at IS NOT NULL FROM cases WHERE customer_id = $1`, cid).
		Scan(&got.jobs, &got.events, &got.firstName, &got.deleted)
	if err != nil {
		t.Fatal(err)
	}
	st, err := f.store.Stats(f.context, f.orgID, env)
	if err != nil {
		t.Fatal(err)
	}
	got.total = st.Total
	if got != want || st.Pending != want.total {
		t.Fatalf("got %+v (pending %d); want %+v", got, st.Pending, want)
	}
}
