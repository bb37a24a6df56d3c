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

// OutcomeWait is how long after a report was generated report.ready
// waits for the customer's outcome to be stored here first.
const OutcomeWait = 10 * time.Minute

// report is one report.generated on its way to report.ready.
type report struct {
	ctx context.Context // the event's consumer span
	e   event.Event
	r   reportGenerated
}

// tenant is an organization's environment.
type tenant struct{ org, env string }

func tenantOfEvent(e event.Event) tenant { return tenant{e.OrgID, e.Environment} }

// applyReports turns reports into report.ready messages in tx, in two
// round trips whatever their number: one takes the customers' stage
// locks (in the verification consumer's order, see customers.lockAll)
// and reads their latest messages, whether their outcome is stored and
// who wants report.ready; one writes. overdue are parked reports to
// release without their outcome, staged first.
//
// Outcome first: a report comes from verification.completed/rejected,
// but on another topic, which this service may read ahead of
// verification-events. A fresh report whose customer has no outcome
// stored here yet is parked (postgres.Batch.Park), not retried: the
// consumer goes on with other customers' reports, and the verification
// consumer stages report.ready right after the outcome when it stores
// it. A customer's later reports in the batch park behind it. An older
// report (a replay, or an outcome past the retention) goes on at once.
func applyReports(ctx context.Context, t postgres.Tx, publicURL string, reports []report, overdue []postgres.WaitingReport) error {
	cs := customers{}
	subs := map[tenant]*[]string{}
	for _, r := range reports {
		if r.r.CustomerID == "" || r.r.ReportID == "" {
			return inbox.Permanent(fmt.Errorf("%s without customerId or reportId", r.e.Type))
		}
		if err := tenantOf(r.e); err != nil {
			return err
		}
		c := cs.add(r.e, r.r.CustomerID)
		c.checkOutcome = c.checkOutcome || fresh(r.r)
		subs[tenantOfEvent(r.e)] = new([]string)
	}
	var overdueIDs []string
	for _, w := range overdue {
		e := event.Event{OrgID: w.OrgID, Environment: w.Env}
		cs.add(e, w.CustomerID)
		subs[tenantOfEvent(e)] = new([]string)
		overdueIDs = append(overdueIDs, w.EventID)
	}
	var reads postgres.Batch
	for _, c := range cs.lockAll(&reads) {
		if c.checkOutcome {
			reads.HasOutcome(c.org, c.env, c.id, &c.hasOutcome)
		}
	}
	var released []postgres.WaitingReport
	if len(overdueIDs) > 0 {
		reads.ReleaseIDs(overdueIDs, &released)
	}
	for tn, into := range subs {
		reads.Subscribers(tn.org, tn.env, webhook.TypeReportReady, into)
	}
	if err := t.Send(ctx, &reads); err != nil {
		return err
	}
	var w postgres.Batch
	for _, p := range released {
		var d reportGenerated
		if err := json.Unmarshal(p.Data, &d); err != nil {
			return inbox.Permanent(fmt.Errorf("parked report %s: %w", p.EventID, err))
		}
		e := event.Event{ID: p.EventID, Type: TypeReportGenerated, OrgID: p.OrgID, Environment: p.Env, Time: p.Time}
		if err := stageReport(ctx, &w, publicURL, cs[customerKey(e, p.CustomerID)], e, d, *subs[tenantOfEvent(e)]); err != nil {
			return err
		}
	}
	for _, r := range reports {
		c := cs[customerKey(r.e, r.r.CustomerID)]
		if c.parked || (fresh(r.r) && !c.hasOutcome) {
			c.parked = true
			w.Park(postgres.WaitingReport{EventID: r.e.ID, OrgID: r.e.OrgID, Env: r.e.Environment, CustomerID: r.r.CustomerID,
				Time: r.e.Time, GeneratedAt: r.r.GeneratedAt, Data: r.e.Data})
			continue
		}
		if err := stageReport(r.ctx, &w, publicURL, c, r.e, r.r, *subs[tenantOfEvent(r.e)]); err != nil {
			return err
		}
	}
	return t.Send(ctx, &w)
}

// fresh reports whether r waits for its customer's outcome.
func fresh(r reportGenerated) bool { return time.Since(r.GeneratedAt) <= OutcomeWait }

// stageReport queues the report.ready of e (data r) for endpoints, with
// the customer's lock held: its id derived from e's, so a replay of e
// stores nothing new; its time e's, moved on when needed to a
// millisecond after the customer's latest message.
func stageReport(ctx context.Context, w *postgres.Batch, publicURL string, c *customer, e event.Event, r reportGenerated, endpoints []string) error {
	m, err := webhook.NewMessage(StageID(e.ID, webhook.TypeReportReady), webhook.TypeReportReady, e.OrgID, e.Environment,
		postgres.StageAfter(e.Time, c.last), ReportReadyData{CustomerID: r.CustomerID, ReportID: r.ReportID, Version: r.Version,
			Status: r.Status, ReportURL: *ReportURL(publicURL, r.CustomerID), GeneratedAt: stamp(r.GeneratedAt)})
	if err != nil {
		return inbox.Permanent(err)
	}
	m.CustomerID = r.CustomerID
	w.Enqueue(ctx, m, endpoints)
	c.wrote(m.CreatedAt)
	return nil
}
