package events

import (
	"encoding/json"
	"testing"
	"time"
)

// Each address transition makes the stage event its status and the
// status before it call for, or none.
func TestStageOf(t *testing.T) {
	at := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	revisit := at.Add(24 * time.Hour)
	s := func(v string) *string { return &v }
	attempts := json.RawMessage(`{"attempts":[{"reason":"NO_ACCESS"},{"reason":"UNSAFE_AREA"}],"timeline":[]}`)
	cases := []struct {
		name       string
		status     string
		previous   *string
		data       json.RawMessage
		next       *time.Time
		want       string
		reason     string
		nextVisit  *string
		flagsCount int
	}{
		{"assigned from pending", "ASSIGNED", s("PENDING"), nil, nil, "address.assigned", "", nil, 0},
		{"assigned, producer without previousStatus", "ASSIGNED", nil, nil, nil, "address.assigned", "", nil, 0},
		{"reassigned after an attempt (pending first)", "ASSIGNED", s("PENDING"), attempts, nil, "address.assigned", "", nil, 0},
		{"checked in", "IN_PROGRESS", s("ASSIGNED"), nil, nil, "address.checked_in", "", nil, 0},
		{"no access", "ASSIGNED", s("IN_PROGRESS"), json.RawMessage(`{"attempts":[{"reason":"NO_ACCESS"}]}`), &revisit,
			"address.attempted", "NO_ACCESS", s("2026-11-27T09:00:00.000Z"), 0},
		{"unsafe area: no re-visit date", "ASSIGNED", s("IN_PROGRESS"), attempts, nil, "address.attempted", "UNSAFE_AREA", nil, 0},
		{"attempt read from the timeline of an older event", "ASSIGNED", nil,
			json.RawMessage(`{"attempts":[{"reason":"NO_ACCESS"}],"timeline":[{"status":"PENDING"},{"status":"ASSIGNED"},{"status":"IN_PROGRESS"},{"status":"ASSIGNED"}]}`),
			nil, "address.attempted", "NO_ACCESS", nil, 0},
		{"verified", "VERIFIED", s("IN_PROGRESS"), json.RawMessage(`{"flags":["SHORT_VISIT","PHOTO_REUSED"]}`), nil, "address.verified", "", nil, 2},
		{"verified without flags", "VERIFIED", s("IN_PROGRESS"), json.RawMessage(`{}`), nil, "address.verified", "", nil, 0},
		{"released from review", "VERIFIED", s("IN_REVIEW"), json.RawMessage(`{}`), nil, "address.verified", "", nil, 0},
		{"rejected", "REJECTED", s("IN_PROGRESS"), json.RawMessage(`{"reason":"ADDRESS_NOT_FOUND"}`), nil, "address.rejected", "ADDRESS_NOT_FOUND", nil, 0},
		{"held for review", "IN_REVIEW", s("IN_PROGRESS"), nil, nil, "", "", nil, 0},
		{"released agent", "PENDING", s("ASSIGNED"), nil, nil, "", "", nil, 0},
		{"cancelled", "CANCELLED", s("ASSIGNED"), nil, nil, "", "", nil, 0},
		{"unknown status", "SOMETHING_NEW", s("ASSIGNED"), nil, nil, "", "", nil, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := addressUpdated{CustomerID: "cus_1", AddressID: "adr_1", Status: c.status, Sequence: 4, OccurredAt: at,
				VerificationData: c.data, PreviousStatus: c.previous, AgentID: s("agt_sandbox"), NextVisitAt: c.next}
			typ, data, ok := stageOf(d)
			if typ != c.want || ok != (c.want != "") {
				t.Fatalf("stage %q (%v), want %q", typ, ok, c.want)
			}
			if !ok {
				return
			}
			b, _ := json.Marshal(data)
			var got struct {
				CustomerID, AddressID, Status, OccurredAt, Reason string
				Sequence                                          int64
				AgentID, NextVisitAt                              *string
				Flags                                             []string
				Attempt                                           int
			}
			_ = json.Unmarshal(b, &got)
			if got.CustomerID != "cus_1" || got.AddressID != "adr_1" || got.Status != c.status || got.Sequence != 4 ||
				got.OccurredAt != "2026-11-26T09:00:00.000Z" || got.AgentID == nil || *got.AgentID != "agt_sandbox" {
				t.Fatalf("data %s", b)
			}
			if got.Reason != c.reason || len(got.Flags) != c.flagsCount || (got.NextVisitAt == nil) != (c.nextVisit == nil) ||
				(c.nextVisit != nil && *got.NextVisitAt != *c.nextVisit) {
				t.Fatalf("data %s", b)
			}
			if typ == "address.verified" && got.Flags == nil {
				t.Fatalf("flags is null, want []: %s", b)
			}
		})
	}
}

// A stage event's id depends only on its source event and type: a replay
// gives the same id; another source or type another.
func TestStageIDIsDerived(t *testing.T) {
	a := StageID("0d4c9f3e-1111-4a8e-9d6f-2b7c8e9f0a1b", "address.verified")
	if a != StageID("0d4c9f3e-1111-4a8e-9d6f-2b7c8e9f0a1b", "address.verified") {
		t.Fatal("not deterministic")
	}
	if a == StageID("0d4c9f3e-1111-4a8e-9d6f-2b7c8e9f0a1c", "address.verified") ||
		a == StageID("0d4c9f3e-1111-4a8e-9d6f-2b7c8e9f0a1b", "address.rejected") ||
		a == "0d4c9f3e-1111-4a8e-9d6f-2b7c8e9f0a1b" {
		t.Fatal("ids collide")
	}
}
