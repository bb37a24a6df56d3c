package events

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/services/webhook/internal/postgres"
)

// Subscriptions turn verification events into deliveries, in the inbox
// transaction: the message and one delivery per subscribed endpoint are
// written with the record that the event was processed, so a redelivered
// event schedules nothing twice and a crash loses nothing. Sending is the
// dispatcher's job, from Postgres: a slow endpoint never holds up the
// partition. publicURL is the gateway as clients reach it. Both consumers
// apply their waiting events in batches (16 verification events, 64
// reports per transaction): they must keep up with every address
// transition and every report of every organization.
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
	var sweep overdueSweep
	onReport := func(ctx context.Context, tx pgx.Tx, e event.Event, r reportGenerated) error {
		t := within(tx)
		overdue, err := sweep.overdue(ctx, t)
		if err != nil {
			return err
		}
		return applyReports(ctx, t, publicURL, []report{{ctx: ctx, e: e, r: r}}, overdue)
	}
	// A batch of reports is applied in two round trips (the reads, the
	// writes) besides the inbox record, and takes its customers' stage
	// locks in the verification consumer's order, so the two consumers'
	// batches never deadlock.
	onReports := func(ctx context.Context, tx pgx.Tx, batch []inbox.Batched) error {
		reports := make([]report, 0, len(batch))
		for _, b := range batch {
			if b.Event.Type != TypeReportGenerated {
				continue
			}
			var r reportGenerated
			if err := json.Unmarshal(b.Event.Data, &r); err != nil {
				return inbox.Permanent(fmt.Errorf("decode %s: %w", b.Event.Type, err))
			}
			reports = append(reports, report{ctx: b.Ctx, e: b.Event, r: r})
		}
		t := within(tx)
		overdue, err := sweep.overdue(ctx, t)
		if err != nil {
			return err
		}
		return applyReports(ctx, t, publicURL, reports, overdue)
	}
	return []inbox.Subscription{{Group: "webhook.verification", Topics: []string{event.TopicVerification}, Batch: VerificationBatch,
		Routes:     []inbox.Route{inbox.On(onAddress, TypeAddressUpdated), inbox.On(onStatus, TypeCompleted, TypeRejected)},
		ApplyBatch: onBatch},
		{Group: "webhook.reporting", Topics: []string{event.TopicReporting}, Batch: ReportingBatch,
			Routes: []inbox.Route{inbox.On(onReport, TypeReportGenerated)}, ApplyBatch: onReports}}
}

// VerificationBatch is how many waiting verification events are applied
// per transaction.
const VerificationBatch = 16

// ReportingBatch is how many waiting report.generated events are applied
// per transaction: in a burst the reports come as fast as the outcomes,
// and one transaction each (seven round trips, the commit among them)
// kept up with a third of them on a busy machine (BENCHMARKS.md
// §18x).
const ReportingBatch = 64

// overdueSweep looks for parked reports whose outcome has not come
// within OutcomeWait, at most once a minute (they are rare: an outcome
// the verification consumer could not store).
type overdueSweep struct{ next atomic.Int64 }

func (s *overdueSweep) overdue(ctx context.Context, t postgres.Tx) ([]postgres.WaitingReport, error) {
	now := time.Now()
	if next := s.next.Load(); now.UnixNano() < next || !s.next.CompareAndSwap(next, now.Add(time.Minute).UnixNano()) {
		return nil, nil
	}
	return t.Overdue(ctx, now.Add(-OutcomeWait), ReportingBatch)
}
