package events

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/services/webhook/internal/postgres"
	"github.com/kycfield/kyc/services/webhook/internal/webhook"
)

// step is one verification event on its way to deliveries: decoded,
// then what it read, then what it writes.
type step struct {
	ctx    context.Context // the event's consumer span: its messages carry that trace
	e      event.Event
	addr   *addressUpdated // verification.address.updated
	status *customerStatus // verification.completed/rejected
	// Read: the endpoints that want e's type, the addresses' versions (a
	// status event), the stage event it makes and the endpoints that want
	// that.
	subs      []string
	versions  map[string]postgres.AddressVersion
	stageType string
	stageData any
	stageSubs []string
}

// decodeStep decodes a verification event read in a batch, as its route
// would (nil: no route reads its type).
func decodeStep(b inbox.Batched) (*step, error) {
	s := &step{ctx: b.Ctx, e: b.Event}
	var into any
	switch b.Event.Type {
	case TypeAddressUpdated:
		s.addr = &addressUpdated{}
		into = s.addr
	case TypeCompleted, TypeRejected:
		s.status = &customerStatus{}
		into = s.status
	default:
		return nil, nil
	}
	if err := json.Unmarshal(b.Event.Data, into); err != nil {
		return nil, inbox.Permanent(fmt.Errorf("decode %s: %w", b.Event.Type, err))
	}
	return s, nil
}

// plan turns verification events into deliveries, a batch at a time, with
// the effect of applying them one after the other: one round trip reads
// what every event needs (in event order, so an address's version saved
// by one event is seen by a later completed event of its customer), one
// writes every message and delivery (in event order, so a customer's
// stage deliveries park behind each other as they would one by one).
type plan struct {
	publicURL string
	steps     []*step
	reads     postgres.Batch
	// last is, for each customer with a stage event in the batch, when its
	// latest message was stored: read with the customer's stage lock, then
	// moved on by each message the batch writes for it.
	last map[string]*lastMessage
}

type lastMessage struct{ at *time.Time }

// applyVerification applies steps in tx in three round trips at most.
func applyVerification(ctx context.Context, t postgres.Tx, publicURL string, steps []*step) error {
	p := &plan{publicURL: publicURL, last: map[string]*lastMessage{}}
	for _, s := range steps {
		if err := p.read(s); err != nil {
			return err
		}
	}
	if len(p.steps) == 0 {
		return nil
	}
	if err := t.Send(ctx, &p.reads); err != nil {
		return err
	}
	var w postgres.Batch
	for _, s := range p.steps {
		if err := p.write(&w, s); err != nil {
			return err
		}
	}
	return t.Send(ctx, &w)
}

func customerKey(e event.Event, customerID string) string {
	return e.OrgID + "\x00" + e.Environment + "\x00" + customerID
}

// read checks s and queues its reads; an event that changes nothing (a
// result held for review) is left out.
func (p *plan) read(s *step) error {
	e := s.e
	switch {
	case s.addr != nil:
		d := s.addr
		if d.AddressID == "" || d.CustomerID == "" {
			return inbox.Permanent(fmt.Errorf("%s without customerId or addressId", e.Type))
		}
		if d.Status == statusInReview {
			return nil // held for quality review: the lender learns the result when it is released
		}
		if err := tenantOf(e); err != nil {
			return err
		}
		p.reads.SaveVersion(e.OrgID, e.Environment, postgres.AddressVersionOf{AddressID: d.AddressID, Sequence: d.Sequence, OccurredAt: d.OccurredAt})
		p.reads.Subscribers(e.OrgID, e.Environment, e.Type, &s.subs)
		if typ, data, ok := stageOf(*d); ok {
			s.stageType, s.stageData = typ, data
			key := customerKey(e, d.CustomerID)
			if _, seen := p.last[key]; !seen {
				l := &lastMessage{}
				p.last[key] = l
				p.reads.LastMessage(e.OrgID, e.Environment, d.CustomerID, &l.at)
			}
			p.reads.Subscribers(e.OrgID, e.Environment, typ, &s.stageSubs)
		}
	case s.status != nil:
		if s.status.CustomerID == "" {
			return inbox.Permanent(fmt.Errorf("%s without customerId", e.Type))
		}
		if err := tenantOf(e); err != nil {
			return err
		}
		p.reads.Subscribers(e.OrgID, e.Environment, e.Type, &s.subs)
		s.versions = map[string]postgres.AddressVersion{}
		if ids := addressIDs(*s.status); len(ids) > 0 {
			p.reads.Versions(e.OrgID, e.Environment, ids, s.versions)
		}
	default:
		return nil
	}
	p.steps = append(p.steps, s)
	return nil
}

// tenantOf refuses an event without its organization or environment.
func tenantOf(e event.Event) error {
	if e.OrgID == "" || e.Environment == "" {
		return inbox.Permanent(fmt.Errorf("%s without organization or environment", e.Type))
	}
	return nil
}

// write queues s's message (stored even when no endpoint wants it: the
// events API lists it) with its deliveries, then its stage event's.
func (p *plan) write(w *postgres.Batch, s *step) error {
	e := s.e
	var customerID string
	var data any
	if s.addr != nil {
		customerID, data = s.addr.CustomerID, addressData(*s.addr)
	} else {
		customerID, data = s.status.CustomerID, statusData(e, *s.status, s.versions, p.publicURL)
	}
	m, err := webhook.NewMessage(e.ID, e.Type, e.OrgID, e.Environment, e.Time, data)
	if err != nil {
		return inbox.Permanent(err)
	}
	m.CustomerID = customerID
	w.Enqueue(s.ctx, m, s.subs)
	key := customerKey(e, customerID)
	p.wrote(key, m.CreatedAt)
	if s.stageType == "" {
		return nil
	}
	// The stage event's id is derived from e's, so a replay of e stores
	// nothing new; its time follows the customer's latest message (see
	// postgres.StageAfter), so the events API lists a customer's events
	// in the order they were consumed and the dispatcher sends its stage
	// events in that order.
	at := postgres.StageAfter(e.Time, p.last[key].at)
	sm, err := webhook.NewMessage(StageID(e.ID, s.stageType), s.stageType, e.OrgID, e.Environment, at, s.stageData)
	if err != nil {
		return inbox.Permanent(err)
	}
	sm.CustomerID = customerID
	w.Enqueue(s.ctx, sm, s.stageSubs)
	p.wrote(key, sm.CreatedAt)
	return nil
}

// wrote moves the customer's latest message time on to at, as the
// database stores it (to the microsecond), if the batch has a stage
// event of that customer.
func (p *plan) wrote(key string, at time.Time) {
	l, ok := p.last[key]
	if !ok {
		return
	}
	at = at.UTC().Truncate(time.Microsecond)
	if l.at == nil || at.After(*l.at) {
		l.at = &at
	}
}

func addressIDs(s customerStatus) []string {
	ids := make([]string, len(s.Addresses))
	for i, a := range s.Addresses {
		ids[i] = a.ID
	}
	return ids
}

// addressData renders an address's update.
func addressData(d addressUpdated) AddressData {
	return AddressData{CustomerID: d.CustomerID, AddressID: d.AddressID, Status: d.Status, Sequence: d.Sequence,
		OccurredAt: stamp(d.OccurredAt), VerificationData: d.VerificationData}
}

// statusData renders a completed/rejected event, adding each address's
// last sequence and time (seen earlier on the same partition: one
// customer's events are keyed alike and stay in order).
func statusData(e event.Event, s customerStatus, versions map[string]postgres.AddressVersion, publicURL string) StatusData {
	out := StatusData{CustomerID: s.CustomerID, CustomerName: s.CustomerName, LoanID: s.LoanID, LoanType: s.LoanType,
		OverallStatus: s.OverallStatus, VerificationDate: s.VerificationDate, ReportURL: ReportURL(publicURL, s.CustomerID),
		Addresses: make([]StatusAddress, len(s.Addresses))}
	for i, a := range s.Addresses {
		v, ok := versions[a.ID]
		if !ok {
			v.OccurredAt = e.Time // never seen an update: the event's own time
		}
		out.Addresses[i] = StatusAddress{statusAddress: a, Sequence: v.Sequence, OccurredAt: stamp(v.OccurredAt)}
	}
	return out
}
