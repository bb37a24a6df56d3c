package events

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/services/webhook/internal/postgres"
	"github.com/kycfield/kyc/services/webhook/internal/webhook"
)

// Verification turns verification events into deliveries, in the inbox
// transaction: the message and one delivery per subscribed endpoint are
// written with the record that the event was processed, so a redelivered
// event schedules nothing twice and a crash loses nothing. Sending is the
// dispatcher's job, from Postgres: a slow endpoint never holds up the
// partition. publicURL is the gateway as clients reach it.
func Verification(within func(pgx.Tx) postgres.Tx, publicURL string) inbox.Handler {
	return func(ctx context.Context, tx pgx.Tx, e event.Event) error {
		if e.Type != TypeAddressUpdated && e.Type != TypeCompleted && e.Type != TypeRejected {
			return nil
		}
		if e.OrgID == "" || e.Environment == "" {
			return inbox.Permanent(fmt.Errorf("%s without organization or environment", e.Type))
		}
		t := within(tx)
		var data any
		var err error
		var endpoints []string
		if e.Type == TypeAddressUpdated {
			data, endpoints, err = addressData(ctx, t, e)
		} else {
			data, endpoints, err = statusData(ctx, t, e, publicURL)
		}
		if err != nil || len(endpoints) == 0 {
			return err
		}
		m, err := webhook.NewMessage(e.ID, e.Type, e.OrgID, e.Environment, e.Time, data)
		if err != nil {
			return inbox.Permanent(err)
		}
		_, err = t.Enqueue(ctx, m, endpoints)
		return err
	}
}

// addressData records the address's version and renders its update.
func addressData(ctx context.Context, t postgres.Tx, e event.Event) (AddressData, []string, error) {
	var d addressUpdated
	if err := json.Unmarshal(e.Data, &d); err != nil || d.AddressID == "" || d.CustomerID == "" {
		return AddressData{}, nil, inbox.Permanent(fmt.Errorf("decode %s: %v", e.Type, err))
	}
	save := &postgres.AddressVersionOf{AddressID: d.AddressID, Sequence: d.Sequence, OccurredAt: d.OccurredAt}
	endpoints, _, err := t.Lookup(ctx, e.OrgID, e.Environment, e.Type, save, nil)
	return AddressData{CustomerID: d.CustomerID, AddressID: d.AddressID, Status: d.Status, Sequence: d.Sequence,
		OccurredAt: stamp(d.OccurredAt), VerificationData: d.VerificationData}, endpoints, err
}

// statusData renders a completed/rejected event, adding each address's
// last sequence and time (seen earlier on the same partition: one
// customer's events are keyed alike and stay in order).
func statusData(ctx context.Context, t postgres.Tx, e event.Event, publicURL string) (StatusData, []string, error) {
	var s customerStatus
	if err := json.Unmarshal(e.Data, &s); err != nil || s.CustomerID == "" {
		return StatusData{}, nil, inbox.Permanent(fmt.Errorf("decode %s: %v", e.Type, err))
	}
	ids := make([]string, len(s.Addresses))
	for i, a := range s.Addresses {
		ids[i] = a.ID
	}
	endpoints, versions, err := t.Lookup(ctx, e.OrgID, e.Environment, e.Type, nil, ids)
	if err != nil {
		return StatusData{}, nil, err
	}
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
	return out, endpoints, nil
}
