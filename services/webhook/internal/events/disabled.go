package events

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/pkg/orgaudit"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/services/webhook/internal/webhook"
)

// TypeEndpointDisabled is published on webhook-events when the platform
// disables an endpoint (410 Gone, or failing for days), so the dashboard
// can tell its organization.
const TypeEndpointDisabled = "endpoint.disabled"

// EndpointDisabled is the data of endpoint.disabled. The producer owns it
// and its schema (api/events/webhook-events.json).
type EndpointDisabled struct {
	EndpointID string `json:"endpointId"`
	URL        string `json:"url"`
	Reason     string `json:"reason"`
	DisabledAt string `json:"disabledAt"`
}

// Disabled is the event published for e, disabled just now.
func Disabled(e webhook.Endpoint) (event.Event, error) {
	return event.New(TypeEndpointDisabled, e.OrgID, e.Env, EndpointDisabled{EndpointID: e.ID, URL: e.URL,
		Reason: e.DisabledReason, DisabledAt: stamp(e.UpdatedAt)})
}

// Contract is the webhook context's side of the event contracts.
func Contract() event.Contract {
	return event.Contract{Samples: samples, Reads: inbox.Reads(Subscriptions(nil, "")...)}
}

func samples() []event.Sample {
	at := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	e := webhook.Endpoint{ID: "whe_019a2b3c4d5e6f708192a3b4c5d6e7f8", OrgID: "org_019a2b3c4d5e6f708192a3b4c5d6e7f8", Env: "live",
		URL: "https://hooks.example.com/kyc", DisabledReason: webhook.DisabledGone, UpdatedAt: at}
	ev, err := Disabled(e)
	if err != nil {
		panic(err) // a fixed value that cannot be marshalled is a programming error
	}
	return append(append([]event.Sample{{Topic: event.TopicWebhook, Event: ev}}, stageSamples(at)...), auditSamples(e.OrgID, e.ID)...)
}

// auditSamples are lenders' actions on webhooks as the store records
// them (pkg/orgaudit): a member reading an endpoint's secret from the
// dashboard, and the organization's key recovering failed deliveries.
func auditSamples(orgID, endpointID string) []event.Sample {
	member := principal.Principal{Kind: principal.KindAPIKey, OrgID: orgID, Env: principal.EnvLive,
		UserID: "usr_019a2b3c4d5e6f708192a3b4c5d6e7f8", MemberRole: principal.MemberAdmin, ClientIP: "203.0.113.7"}
	key := principal.Principal{Kind: principal.KindAPIKey, OrgID: orgID, Env: principal.EnvLive,
		KeyID: "key_019a2b3c4d5e6f708192a3b4c5d6e7f8", ClientIP: "198.51.100.4"}
	var out []event.Sample
	for _, s := range []struct {
		p principal.Principal
		a webhook.Audit
	}{
		{member, webhook.Audit{Action: webhook.ActionSecretRead, Target: endpointID}},
		{key, webhook.Audit{Action: webhook.ActionRecover, Target: endpointID,
			Details: map[string]any{"since": "2026-11-22T10:00:00Z", "recovered": 12}}},
	} {
		m, err := orgaudit.Message(principal.With(context.Background(), s.p), event.TopicOrgAudit, s.a.Action, s.a.Target, orgaudit.Done, s.a.Details)
		if err != nil {
			panic(err)
		}
		out = append(out, event.Sample{Topic: event.TopicOrgAudit, Event: m.Event})
	}
	return out
}

// StageSchema names the schema of the stage events' data
// (api/events/webhook-stage-events.json): not a topic, the webhooks'.
const StageSchema = "webhook-stage-events"

// stageSamples are the stage events of an address's visit and its report
// as this context renders them, wrapped as events so that the contract
// test holds their data to StageSchema.
func stageSamples(at time.Time) []event.Sample {
	org, cus, adr := "org_019a2b3c4d5e6f708192a3b4c5d6e7f8", "cus_019a2b3c4d5e6f708192a3b4c5d6e7f8", "adr_019a2b3c4d5e6f708192a3b4c5d6e7f8"
	agent, revisit := "agt_019a2b3c4d5e6f708192a3b4c5d6e7f8", at.Add(24*time.Hour)
	str := func(s string) *string { return &s }
	steps := []addressUpdated{
		{Status: statusAssigned, PreviousStatus: str(statusPending)},
		{Status: statusInProgress, PreviousStatus: str(statusAssigned)},
		{Status: statusAssigned, PreviousStatus: str(statusInProgress), NextVisitAt: &revisit,
			VerificationData: []byte(`{"attempts":[{"at":"2026-11-23T10:00:00.000Z","reason":"NO_ACCESS","by":"` + agent + `"}]}`)},
		{Status: statusVerified, PreviousStatus: str(statusInProgress), VerificationData: []byte(`{"flags":["SHORT_VISIT"]}`)},
		{Status: statusRejected, PreviousStatus: str(statusInProgress), VerificationData: []byte(`{"reason":"ADDRESS_NOT_FOUND"}`)},
	}
	var out []event.Sample
	add := func(typ string, data any, n int) {
		raw, err := json.Marshal(data)
		if err != nil {
			panic(err) // a fixed value that cannot be marshalled is a programming error
		}
		src := fmt.Sprintf("0d4c9f3e-1111-4a8e-9d6f-2b7c8e9f0a%02d", n)
		out = append(out, event.Sample{Topic: StageSchema, Event: event.Event{ID: StageID(src, typ), Type: typ, Time: at,
			OrgID: org, Environment: "live", Data: raw}})
	}
	for i, d := range steps {
		d.CustomerID, d.AddressID, d.Sequence, d.OccurredAt, d.AgentID = cus, adr, int64(i+2), at, &agent
		typ, data, ok := stageOf(d)
		if !ok {
			panic("no stage event for " + d.Status)
		}
		add(typ, data, i)
	}
	add(webhook.TypeReportReady, ReportReadyData{CustomerID: cus, ReportID: "rep_019a2b3c4d5e6f708192a3b4c5d6e7f8", Version: 1,
		Status: statusVerified, ReportURL: *ReportURL("https://api.example.com", cus), GeneratedAt: stamp(at)}, len(steps))
	return out
}
