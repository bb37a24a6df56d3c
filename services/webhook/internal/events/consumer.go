package events

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/services/webhook/internal/postgres"
	"github.com/kycfield/kyc/services/webhook/internal/webhook"
)

// Subscriptions turn verification events into deliveries, in the inbox
// transaction: the message and one delivery per subscribed endpoint are
// written with the record that the event was processed, so a redelivered
// event schedules nothing twice and a crash loses nothing. Sending is the
// dispatcher's job, from Postgres: a slow endpoint never holds up the
// partition. publicURL is the gateway as clients reach it. The consumer
// applies up to 16 waiting events per transaction: it must keep up with
// every address transition of every organization.
func Subscriptions(within func(pgx.Tx) postgres.Tx, publicURL string) []inbox.Subscription {
	onAddress := func(ctx context.Context, tx pgx.Tx, e event.Event, d addressUpdated) error {
		return applyVerification(ctx, within(tx), publicURL, []*step{{ctx: ctx, e: e, addr: &d}})
	}
	onStatus := func(ctx context.Context, tx pgx.Tx, e event.Event, s customerStatus) error {
		return applyVerification(ctx, within(tx), publicURL, []*step{{ctx: ctx, e: e, status: &s}})
	}
	// A batch is applied with the routes' effect, event for event, in
	// three round trips in all (the inbox record, the reads, the writes)
	// rather than three or more per event.
	onBatch := func(ctx context.Context, tx pgx.Tx, batch []inbox.Batched) error {
		steps := make([]*step, 0, len(batch))
		for _, b := range batch {
			s, err := decodeStep(b)
			if err != nil {
				return err
			}
			if s != nil {
				steps = append(steps, s)
			}
		}
		return applyVerification(ctx, within(tx), publicURL, steps)
	}
	onReport := func(ctx context.Context, tx pgx.Tx, e event.Event, r reportGenerated) error {
		if r.CustomerID == "" || r.ReportID == "" {
			return inbox.Permanent(fmt.Errorf("%s without customerId or reportId", e.Type))
		}
		t := within(tx)
		if err := outcomeFirst(ctx, t, e, r); err != nil {
			return err
		}
		return stage(ctx, t, e, webhook.TypeReportReady, r.CustomerID, ReportReadyData{CustomerID: r.CustomerID,
			ReportID: r.ReportID, Version: r.Version, Status: r.Status, ReportURL: *ReportURL(publicURL, r.CustomerID),
			GeneratedAt: stamp(r.GeneratedAt)})
	}
	return []inbox.Subscription{{Group: "webhook.verification", Topics: []string{event.TopicVerification}, Batch: VerificationBatch,
		Routes:     []inbox.Route{inbox.On(onAddress, TypeAddressUpdated), inbox.On(onStatus, TypeCompleted, TypeRejected)},
		ApplyBatch: onBatch},
		// One event per transaction: it then holds one customer's stage
		// lock (see stage) and can never deadlock with the verification
		// consumer's batch.
		{Group: "webhook.reporting", Topics: []string{event.TopicReporting}, Batch: 1,
			Routes: []inbox.Route{inbox.On(onReport, TypeReportGenerated)}}}
}

// VerificationBatch is how many waiting verification events are applied
// per transaction.
const VerificationBatch = 16

// OutcomeWait is how long after a report was generated report.ready
// waits for the customer's outcome to be stored here first.
const OutcomeWait = 10 * time.Minute

// outcomeFirst keeps report.ready behind the outcome it reports on. The
// report comes from verification.completed/rejected, but on another
// topic, which this service may read ahead of verification-events: a
// fresh report whose customer has no outcome stored here yet is retried
// (the reporting consumer applies one event at a time, so this holds up
// nothing but reports) until the verification consumer has stored it.
// An older report (a re-render, or an outcome past the retention) goes
// on at once.
func outcomeFirst(ctx context.Context, t postgres.Tx, e event.Event, r reportGenerated) error {
	if time.Since(r.GeneratedAt) > OutcomeWait {
		return nil
	}
	ok, err := t.HasOutcome(ctx, e.OrgID, e.Environment, r.CustomerID)
	if err == nil && !ok {
		err = fmt.Errorf("report.ready of %s waits for the customer's outcome", r.CustomerID)
	}
	return err
}

// stage stores the stage event typ derived from e and enqueues it for the
// endpoints that want it. Its id is derived from e's, so a replay of e
// stores nothing new. Its time is e's, moved on when needed to a
// millisecond after the customer's latest event (postgres.Tx.StageTime),
// so the events API lists a customer's events in the order they were
// consumed, which for one topic is the order they happened (a
// customer's events share a partition), and the dispatcher sends a
// customer's stage events in that order.
func stage(ctx context.Context, t postgres.Tx, e event.Event, typ, customerID string, data any) error {
	if e.OrgID == "" || e.Environment == "" {
		return inbox.Permanent(fmt.Errorf("%s without organization or environment", e.Type))
	}
	at, err := t.StageTime(ctx, e.OrgID, e.Environment, customerID, e.Time)
	if err != nil {
		return err
	}
	endpoints, _, err := t.Lookup(ctx, e.OrgID, e.Environment, typ, nil, nil)
	if err != nil {
		return err
	}
	m, err := webhook.NewMessage(StageID(e.ID, typ), typ, e.OrgID, e.Environment, at, data)
	if err != nil {
		return inbox.Permanent(err)
	}
	m.CustomerID = customerID
	_, err = t.Enqueue(ctx, m, endpoints)
	return err
}
