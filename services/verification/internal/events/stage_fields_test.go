package events

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/kycfield/kyc/services/verification/internal/verification"
	"github.com/kycfield/kyc/services/verification/internal/verification/view"
)

// verification.address.updated says what came before each transition,
// who has the address and, after a visit without access only, when it
// is visited again: the webhook context's stage events need all three.
func TestAddressUpdatedCarriesStageFields(t *testing.T) {
	at := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	due := at.Add(24 * time.Hour)
	j := verification.Job{AddressID: "adr_1", CustomerID: "cus_1", OrgID: "org_1", Env: verification.EnvTest,
		Status: verification.Pending, Timeline: []verification.Transition{{Status: verification.Pending, At: at, By: "system"}}}
	type fields struct {
		PreviousStatus, AgentID, NextVisitAt *string
	}
	str := func(s string) *string { return &s }
	steps := []struct {
		name string
		move func(j *verification.Job) error
		want fields
	}{
		{"assigned", func(j *verification.Job) error { return j.Assign("agt_sandbox", at, "sandbox") }, fields{str("PENDING"), str("agt_sandbox"), nil}},
		{"checked in", func(j *verification.Job) error { return j.CheckIn(at, "sandbox") }, fields{str("ASSIGNED"), str("agt_sandbox"), nil}},
		{"no access", func(j *verification.Job) error { return j.NoAccess("Gate locked.", due, at, "sandbox") },
			fields{str("IN_PROGRESS"), str("agt_sandbox"), str("2026-11-27T09:00:00.000Z")}},
		{"checked in again: the re-visit date is not repeated", func(j *verification.Job) error { return j.CheckIn(at, "sandbox") },
			fields{str("ASSIGNED"), str("agt_sandbox"), nil}},
		{"unsafe area: no re-visit date", func(j *verification.Job) error {
			j.Attempts = append(j.Attempts, verification.Attempt{At: at, Reason: verification.ReasonUnsafeArea, By: "agt_sandbox"})
			j.Status = verification.Assigned
			j.Timeline = append(j.Timeline, verification.Transition{Status: verification.Assigned, At: at})
			return nil
		}, fields{str("IN_PROGRESS"), str("agt_sandbox"), nil}},
	}
	p := Publisher{View: view.Renderer{BaseURL: "https://api.example.com"}}
	for _, s := range steps {
		if err := s.move(&j); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		c := verification.Case{CustomerID: j.CustomerID, OrgID: j.OrgID, Env: j.Env, Status: verification.InProgress, Jobs: []verification.Job{j}}
		e, err := p.Of(verification.Change{Type: TypeAddressUpdated, Case: c, Job: &c.Jobs[0]})
		if err != nil {
			t.Fatal(err)
		}
		var got fields
		_ = json.Unmarshal(e.Data, &got)
		if show(got.PreviousStatus) != show(s.want.PreviousStatus) || show(got.AgentID) != show(s.want.AgentID) ||
			show(got.NextVisitAt) != show(s.want.NextVisitAt) {
			t.Errorf("%s: %s", s.name, e.Data)
		}
	}
}

func show(s *string) string {
	if s == nil {
		return "null"
	}
	return *s
}
