package events

import (
	"cmp"
	"slices"
	"time"

	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/services/webhook/internal/postgres"
)

// customer is a customer a batch stores stage events of (or releases
// parked reports of): what it reads under the customer's stage lock.
type customer struct {
	org, env, id string
	// last is when its latest message was stored: read with the lock,
	// then moved on by each message the batch writes for it.
	last *time.Time
	// outcome: the batch stores the customer's outcome, which releases
	// its parked reports (released).
	outcome  bool
	released []postgres.WaitingReport
	// checkOutcome: a fresh report of the batch waits for the outcome
	// (hasOutcome); parked: one of the batch's reports was parked, so its
	// later ones are too.
	checkOutcome, hasOutcome, parked bool
}

// customers are a batch's customers by customerKey.
type customers map[string]*customer

func customerKey(e event.Event, customerID string) string {
	return e.OrgID + "\x00" + e.Environment + "\x00" + customerID
}

// add returns the customer of e called id, added if new.
func (cs customers) add(e event.Event, id string) *customer {
	key := customerKey(e, id)
	c, ok := cs[key]
	if !ok {
		c = &customer{org: e.OrgID, env: e.Environment, id: id}
		cs[key] = c
	}
	return c
}

// lockAll queues taking every customer's stage lock, each followed by
// reading its latest message, in the order of their ids (the lock is
// keyed by the id alone), and returns them in that order. Both consumers
// (verification and reporting) take their batches' locks so: two
// batches sharing customers then wait for each other at most once,
// never in a cycle (a deadlock PostgreSQL would break by aborting one).
func (cs customers) lockAll(b *postgres.Batch) []*customer {
	out := make([]*customer, 0, len(cs))
	for _, c := range cs {
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b *customer) int {
		return cmp.Or(cmp.Compare(a.id, b.id), cmp.Compare(a.org, b.org), cmp.Compare(a.env, b.env))
	})
	for _, c := range out {
		b.LastMessage(c.org, c.env, c.id, &c.last)
	}
	return out
}

// wrote moves the customer's latest message time on to at, as the
// database stores it (to the microsecond).
func (c *customer) wrote(at time.Time) {
	at = at.UTC().Truncate(time.Microsecond)
	if c.last == nil || at.After(*c.last) {
		c.last = &at
	}
}
