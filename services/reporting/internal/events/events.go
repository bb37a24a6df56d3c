package events

import (
	"context"
	"time"

	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/pkg/optional"
	"github.com/kycfield/kyc/pkg/orgaudit"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/services/reporting/internal/report"
)

// TypeReportGenerated is published when a report version is stored.
const TypeReportGenerated = "report.generated"

// ReportGenerated is the data of report.generated: where the newest
// report is and what it is, nothing personal. The producer owns it and
// its schema (api/events/reporting-events.json).
type ReportGenerated struct {
	CustomerID  string    `json:"customerId"`
	ReportID    string    `json:"reportId"`
	Version     int       `json:"version"`
	Status      string    `json:"status"`
	ReportURL   string    `json:"reportUrl"`
	SHA256      string    `json:"sha256"`
	Size        int64     `json:"size"`
	GeneratedAt time.Time `json:"generatedAt"`
}

// Publisher makes the event of a stored report.
type Publisher struct {
	// ReportURL is the download address of a customer's newest report.
	ReportURL func(customerID string) string
}

// Of is the event published for r in its organization and environment.
func (p Publisher) Of(r report.Report) (event.Event, error) {
	return event.New(TypeReportGenerated, r.OrgID, r.Env, ReportGenerated{CustomerID: r.CustomerID, ReportID: r.ID,
		Version: r.Version, Status: r.Status, ReportURL: p.ReportURL(r.CustomerID), SHA256: r.SHA256, Size: r.Size,
		GeneratedAt: r.GeneratedAt})
}

// Contract is the reporting context's side of the event contracts.
func Contract() event.Contract {
	return event.Contract{Samples: samples, Reads: inbox.Reads(Subscriptions(nil, nil)...)}
}

func samples() []event.Sample {
	p := Publisher{ReportURL: func(id string) string { return "https://api.example.com/api/v1/customers/" + id + "/report" }}
	r := report.Report{ID: "rep_019a2b3c4d5e6f708192a3b4c5d6e7f8", CustomerID: "cus_019a2b3c4d5e6f708192a3b4c5d6e7f8",
		OrgID: "org_019a2b3c4d5e6f708192a3b4c5d6e7f8", Env: report.EnvLive, Version: 1, Status: report.Verified,
		SHA256: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", Size: 183204,
		GeneratedAt: time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)}
	e, err := p.Of(r)
	if err != nil {
		panic(err) // a fixed value that cannot be marshalled is a programming error
	}
	// A member saving the white-labelling from the dashboard, as the
	// store records it.
	ctx := principal.With(context.Background(), principal.Principal{Kind: principal.KindAPIKey, OrgID: r.OrgID, Env: principal.EnvLive,
		UserID: "usr_019a2b3c4d5e6f708192a3b4c5d6e7f8", MemberRole: principal.MemberOwner, ClientIP: "203.0.113.7"})
	m, err := orgaudit.Message(ctx, event.TopicOrgAudit, report.ActionBrandingUpdate, r.OrgID, orgaudit.Done,
		report.BrandDetails(report.Brand{DisplayName: "Zenith Microfinance", Accent: "#7A1FA2"}, report.BrandInput{Logo: optional.Of("iVBORw0KGgo=")}))
	if err != nil {
		panic(err)
	}
	return []event.Sample{{Topic: event.TopicReporting, Event: e}, {Topic: event.TopicOrgAudit, Event: m.Event}}
}
