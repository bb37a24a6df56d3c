package events

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/services/verification/internal/verification"
)

// TypeReportGenerated is published by the reporting context when it has
// stored a report version.
const TypeReportGenerated = "report.generated"

// reportGenerated is the part of report.generated this context reads.
type reportGenerated struct {
	CustomerID string `json:"customerId"`
	ReportURL  string `json:"reportUrl"`
}

// Reports keeps reportUrl for the status endpoint.
func Reports(svc *verification.Service, within func(pgx.Tx) verification.Tx) inbox.Handler {
	return inbox.On(func(ctx context.Context, tx pgx.Tx, e event.Event, d reportGenerated) error {
		return svc.ReportGenerated(ctx, within(tx), e.OrgID, e.Environment, d.CustomerID, d.ReportURL)
	}, TypeReportGenerated)
}
