package events

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/services/customer/internal/customer"
)

// TypeReportGenerated is published by the reporting context when it has
// stored a report version.
const TypeReportGenerated = "report.generated"

// ReportGenerated is the data of report.generated that this context reads.
type ReportGenerated struct {
	CustomerID string `json:"customerId"`
	ReportURL  string `json:"reportUrl"`
}

// Reports sets reportUrl on the customer read once a report exists.
func Reports(svc *customer.Service, within func(pgx.Tx) customer.Tx) inbox.Handler {
	return inbox.On(func(ctx context.Context, tx pgx.Tx, e event.Event, d ReportGenerated) error {
		return svc.ApplyReportGenerated(ctx, within(tx), e.OrgID, e.Environment, d.CustomerID, d.ReportURL)
	}, TypeReportGenerated)
}
