package events

import (
	"context"
	"encoding/json"
	"fmt"

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
// the effect of applying them one after the other: one round trip takes
// the customers' stage locks and reads what every event needs (in event
// order, so an address's version saved by one event is seen by a later
// completed event of its customer), one writes every message and
// delivery (in event order, so a customer's stage deliveries park behind
// each other as they would one by one).
type plan struct {
	publicURL string
	steps     []*step
	reads     postgres.Batch
	// customers are those with a stage event or an outcome in the batch.
	customers customers
	// reportSubs are, per tenant with an outcome in the batch, the
	// endpoints that want report.ready (for the reports it releases).
	reportSubs map[tenant]*[]string
}

// applyVerification applies steps in tx in three round trips at most.
func applyVerification(ctx context.Context, t postgres.Tx, publicURL string, steps []*step) error {
	p := &plan{publicURL: publicURL, customers: customers{}, reportSubs: map[tenant]*[]string{}}
	for _, s := range steps {
		if err := p.check(s); err != nil {
			return err
		}
	}
	if len(p.steps) == 0 {
		return nil
	}
	for _, c := range p.customers.lockAll(&p.reads) {
		if c.outcome {
			p.reads.Release(c.org, c.env, c.id, &c.released)
		}
	}
	for tn, subs := range p.reportSubs {
		p.reads.Subscribers(tn.org, tn.env, webhook.TypeReportReady, subs)
	}
	for _, s := range p.steps {
		p.read(s)
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

// check checks s and notes the customer it locks; an event that changes
// nothing (a result held for review) is left out.
func (p *plan) check(s *step) error {
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
		if typ, data, ok := stageOf(*d); ok {
			s.stageType, s.stageData = typ, data
			p.customers.add(e, d.CustomerID)
		}
	case s.status != nil:
		if s.status.CustomerID == "" {
			return inbox.Permanent(fmt.Errorf("%s without customerId", e.Type))
		}
		if err := tenantOf(e); err != nil {
			return err
		}
		p.customers.add(e, s.status.CustomerID).outcome = true
		if _, ok := p.reportSubs[tenantOfEvent(e)]; !ok {
			p.reportSubs[tenantOfEvent(e)] = new([]string)
		}
	default:
		return nil
	}
	p.steps = append(p.steps, s)
	return nil
}

// read queues s's reads.
func (p *plan) read(s *step) {
	e := s.e
	if d := s.addr; d != nil {
		p.reads.SaveVersion(e.OrgID, e.Environment, postgres.AddressVersionOf{AddressID: d.AddressID, Sequence: d.Sequence, OccurredAt: d.OccurredAt})
		p.reads.Subscribers(e.OrgID, e.Environment, e.Type, &s.subs)
		if s.stageType != "" {
			p.reads.Subscribers(e.OrgID, e.Environment, s.stageType, &s.stageSubs)
		}
		return
	}
	p.reads.Subscribers(e.OrgID, e.Environment, e.Type, &s.subs)
	s.versions = map[string]postgres.AddressVersion{}
	if ids := addressIDs(*s.status); len(ids) > 0 {
		p.reads.Versions(e.OrgID, e.Environment, ids, s.versions)
	}
}

// tenantOf refuses an event without its organization or environment.
func tenantOf(e event.Event) error {
	if e.OrgID == "" || e.Environment == "" {
		return inbox.Permanent(fmt.Errorf("%s without organization or environment", e.Type))
	}
	return nil
}

// write queues s's message (stored even when no endpoint wants it: the
// events API lists it) with its deliveries, then its stage event's, or
// the report.ready of the reports its outcome released.
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
	c, ok := p.customers[customerKey(e, customerID)]
	if !ok {
		return nil // no stage event, no outcome: nothing follows it
	}
	c.wrote(m.CreatedAt)
	if s.status != nil {
		released := c.released
		c.released = nil // a second outcome in the batch releases nothing more
		for _, r := range released {
			if err := p.release(w, s, c, r); err != nil {
				return err
			}
		}
		return nil
	}
	if s.stageType == "" {
		return nil
	}
	// The stage event's id is derived from e's, so a replay of e stores
	// nothing new; its time follows the customer's latest message (see
	// postgres.StageAfter), so the events API lists a customer's events
	// in the order they were consumed and the dispatcher sends its stage
	// events in that order.
	sm, err := webhook.NewMessage(StageID(e.ID, s.stageType), s.stageType, e.OrgID, e.Environment, postgres.StageAfter(e.Time, c.last), s.stageData)
	if err != nil {
		return inbox.Permanent(err)
	}
	sm.CustomerID = customerID
	w.Enqueue(s.ctx, sm, s.stageSubs)
	c.wrote(sm.CreatedAt)
	return nil
}

// release queues the report.ready of r, a report that waited for the
// outcome s stores, right after it.
func (p *plan) release(w *postgres.Batch, s *step, c *customer, r postgres.WaitingReport) error {
	var d reportGenerated
	if err := json.Unmarshal(r.Data, &d); err != nil {
		return inbox.Permanent(fmt.Errorf("parked report %s: %w", r.EventID, err))
	}
	e := event.Event{ID: r.EventID, Type: TypeReportGenerated, OrgID: r.OrgID, Environment: r.Env, Time: r.Time}
	return stageReport(s.ctx, w, p.publicURL, c, e, d, *p.reportSubs[tenantOfEvent(s.e)])
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
