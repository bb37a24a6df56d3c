package events

import (
	"context"
	"slices"
	"time"

	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/pkg/staffaudit"
	"github.com/kycfield/kyc/services/verification/internal/verification"
	"github.com/kycfield/kyc/services/verification/internal/verification/view"
)

// Contract is the verification context's side of the event contracts:
// samples of what it publishes, made by Publisher.Of like the real
// events, and the struct it reads the customer context's events into.
func Contract() event.Contract {
	return event.Contract{Samples: samples, Reads: inbox.Reads(Subscriptions(nil, nil)...)}
}

func samples() []event.Sample {
	at := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	lat, lng, acc := 6.4281, 3.4219, 8.5
	j := verification.Job{AddressID: "adr_019a2b3c4d5e6f708192a3b4c5d6e7f8", CustomerID: "cus_019a2b3c4d5e6f708192a3b4c5d6e7f8",
		OrgID: "org_019a2b3c4d5e6f708192a3b4c5d6e7f8", Env: verification.EnvLive, Status: verification.Verified, Sequence: 4,
		Address:  verification.Address{StreetNumber: "12", StreetName: "Adeola Odeku Street", City: "Victoria Island", State: "Lagos", Country: "Nigeria"},
		Timeline: []verification.Transition{{Status: verification.Pending, At: at, By: "system"}, {Status: verification.Verified, At: at, By: "agt_019a2b3c4d5e6f708192a3b4c5d6e7f8"}},
		Result: &verification.Result{VerifiedAddress: "12 Adeola Odeku Street, Victoria Island, Lagos", VerifiedAt: &at,
			VerifiedLatitude: &lat, VerifiedLongitude: &lng, GPSAccuracyMeters: &acc, AgentNotes: "Met the customer at home.",
			Agent: &verification.Agent{ID: "agt_019a2b3c4d5e6f708192a3b4c5d6e7f8", Name: "Tunde Bakare"},
			Flags: []string{verification.FlagShortVisit}, FlagDetails: []verification.FlagDetail{{Code: verification.FlagShortVisit,
				Severity: verification.SeverityWarning, Message: "The visit lasted 1 min 30 s from check-in to completion (under 3 min)."}}},
		Photos:    []verification.Photo{{ID: "pho_019a2b3c4d5e6f708192a3b4c5d6e7f8", Tag: "building_front", CapturedAt: at}},
		CreatedAt: at, UpdatedAt: at, CompletedAt: &at}
	due := at.Add(verification.DefaultSLA)
	j.DueBy = &due
	c := verification.Case{CustomerID: j.CustomerID, OrgID: j.OrgID, Env: j.Env, FirstName: "Ngozi", LastName: "Okafor",
		Phone: "+2348031234567", LoanID: "LN-2026-001", LoanType: "PERSONAL", Documents: []byte("[]"), Status: verification.Verified,
		VerificationDate: &at, CreatedAt: at, UpdatedAt: at, Jobs: []verification.Job{j}}
	rejected := c
	rj := j
	rj.Status, rj.Result, rj.Photos = verification.Rejected, &verification.Result{Reason: verification.ReasonNoAccess, Diagnostics: "No access on 3 visits"}, nil
	rj.Attempts = []verification.Attempt{{At: at, Reason: verification.ReasonNoAccess, By: "agt_019a2b3c4d5e6f708192a3b4c5d6e7f8"}}
	rejected.Status, rejected.Jobs = verification.Rejected, []verification.Job{rj}
	// A visit without access: back to ASSIGNED with a re-visit date (the
	// webhook context's address.attempted).
	attempted := c
	aj := j
	revisit := at.Add(24 * time.Hour)
	aj.Status, aj.Result, aj.Photos, aj.AgentID, aj.DueAt, aj.CompletedAt = verification.Assigned, nil, nil, "agt_019a2b3c4d5e6f708192a3b4c5d6e7f8", &revisit, nil
	aj.Timeline = []verification.Transition{{Status: verification.Pending, At: at, By: "system"}, {Status: verification.Assigned, At: at, By: "system"},
		{Status: verification.InProgress, At: at, By: aj.AgentID}, {Status: verification.Assigned, At: at, By: aj.AgentID}}
	aj.Attempts = []verification.Attempt{{At: at, Reason: verification.ReasonNoAccess, Notes: "Gate locked.", By: aj.AgentID}}
	attempted.Status, attempted.VerificationDate, attempted.Jobs = verification.InProgress, nil, []verification.Job{aj}
	// A result held for review, and the same result approved by a reviewer.
	held, hj := c, j
	hj.Status, hj.CompletedAt = verification.InReview, nil
	hj.Hold = &verification.Hold{Kind: verification.HoldResult, Outcome: verification.Verified, AgentID: j.Result.Agent.ID, Since: at}
	held.Status, held.VerificationDate, held.Jobs = verification.InProgress, nil, []verification.Job{hj}
	reviewed := c
	rv := j
	rv.Timeline = append(slices.Clone(j.Timeline[:1]), verification.Transition{Status: verification.InReview, At: at, By: j.Result.Agent.ID},
		verification.Transition{Status: verification.Verified, At: at, By: "reviewed by Ada Obi", Decision: verification.DecisionApprove, Note: "Checked."})
	rv.Reviews = []verification.Review{{Decision: verification.DecisionApprove, Kind: verification.HoldResult, ReviewerID: "stf_019a2b3c4d5e6f708192a3b4c5d6e7f8",
		ReviewedBy: "Ada Obi", ReviewedAt: at, Note: "Checked."}}
	reviewed.Jobs = []verification.Job{rv}
	p := Publisher{View: view.Renderer{BaseURL: "https://api.example.com"}}
	var out []event.Sample
	for _, ch := range []verification.Change{
		{Type: TypeAddressUpdated, Case: held, Job: &held.Jobs[0]},
		{Type: TypeAddressUpdated, Case: reviewed, Job: &reviewed.Jobs[0]},
		{Type: TypeCompleted, Case: reviewed},
		{Type: TypeAddressUpdated, Case: c, Job: &c.Jobs[0]},
		{Type: TypeAddressUpdated, Case: rejected, Job: &rejected.Jobs[0]},
		{Type: TypeAddressUpdated, Case: attempted, Job: &attempted.Jobs[0]},
		{Type: TypeCompleted, Case: c},
		{Type: TypeRejected, Case: rejected},
	} {
		e, err := p.Of(ch)
		if err != nil {
			panic(err) // a fixed value that cannot be marshalled is a programming error
		}
		out = append(out, event.Sample{Topic: event.TopicVerification, Event: e})
	}
	return append(out, auditSample())
}

// auditSample is a staff action as this service records one (a
// dispatcher reassigning a task), built by pkg/staffaudit like the real
// ones.
func auditSample() event.Sample {
	ctx := principal.With(context.Background(), principal.Principal{Kind: principal.KindStaff, StaffID: "stf_019a2b3c4d5e6f708192a3b4c5d6e7f8",
		StaffName: "Bola Ahmed", Role: principal.RoleDispatcher, ClientIP: "203.0.113.7"})
	a, err := staffaudit.Of(ctx, "task.reassign", "adr_019a2b3c4d5e6f708192a3b4c5d6e7f8", "org_019a2b3c4d5e6f708192a3b4c5d6e7f8",
		map[string]any{"agentId": "agt_019a2b3c4d5e6f708192a3b4c5d6e7f8"})
	if err != nil {
		panic(err)
	}
	e, err := event.New(staffaudit.Type, a.OrgID, "", a)
	if err != nil {
		panic(err)
	}
	return event.Sample{Topic: event.TopicStaffAudit, Event: e}
}
