package e2e

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/kycfield/kyc/e2e/harness"
	"github.com/kycfield/kyc/pkg/exiftest"
)

// scenePhoto is a photo-like JPEG of its own (a gradient and seeded
// blocks): no other test uploads it, so a PHOTO_REUSED here is this
// test's reuse.
func scenePhoto(seed uint64) []byte { return exiftest.Scene(seed, 36, 90) }

func (a *fieldAgent) upload(addressID, tag string, jpg []byte) {
	a.t.Helper()
	body, ctype := photoForm(tag, jpg)
	r := P.Do(a.t, harness.Request{Method: "POST", URL: P.GatewayURL + "/agent/v1/tasks/" + addressID + "/photos", Body: body,
		Header: map[string]string{"Authorization": "Bearer " + a.token, "Content-Type": ctype, "Idempotency-Key": uuid.NewString()}})
	if r.Status != http.StatusCreated {
		a.t.Fatalf("photo: %d %s", r.Status, r.Body)
	}
}

// evidenceData is what this test reads of an address's verificationData.
type evidenceData struct {
	Flags       []string `json:"flags"`
	FlagDetails []struct {
		Code, Severity, Message string
	} `json:"flagDetails"`
}

func (d evidenceData) message(code string) string {
	for _, f := range d.FlagDetails {
		if f.Code == code {
			return f.Severity + ": " + f.Message
		}
	}
	return ""
}

func addressEvidence(t *testing.T, raw json.RawMessage) evidenceData {
	t.Helper()
	var s struct {
		Addresses []struct {
			VerificationData evidenceData `json:"verificationData"`
		} `json:"addresses"`
	}
	if err := json.Unmarshal(raw, &s); err != nil || len(s.Addresses) != 1 {
		t.Fatalf("status %s: %v", raw, err)
	}
	return s.Addresses[0].VerificationData
}

// TestEvidenceFlagsThroughTheGateway: one agent visits an address of one
// lender in under a minute, then an address of another lender 300 km
// away moments later with one of the first visit's photos. Both lenders
// read sentences with the measured values on the status endpoint; the
// second sees PHOTO_REUSED and nothing of the first
// lender; operations see the match. (The 90-second visit and the
// thresholds' edges are driven on the service's clock in
// services/verification/internal/httpapi; here the visits take well
// under a minute.)
func TestEvidenceFlagsThroughTheGateway(t *testing.T) {
	t.Parallel()
	lga := "Ilorin South" // each live test of Kwara has its own LGA, so its own agent gets the task
	agent := newAgent(t, "Kemi Adebayo", []string{"Kwara"}, []string{lga})
	addr := map[string]any{"streetNumber": "3", "streetName": "Unity Road", "city": "Ilorin", "lga": lga, "state": "Kwara"}
	orgA, orgB := P.NewOrg(t, "growth"), P.NewOrg(t, "growth")
	_, keyA := P.NewKey(t, orgA, "live")
	_, keyB := P.NewKey(t, orgB, "live")

	visit := func(key string, at map[string]any, photos ...[]byte) (customerID, addressID string) {
		return agentVisit(t, agent, key, addr, at, photos...)
	}
	reused := scenePhoto(1)
	custA, adrA := visit(keyA, map[string]any{"latitude": 8.496612, "longitude": 4.542131, "accuracy": 9}, reused, scenePhoto(2))
	// 300 km east, moments later, with the first visit's front photo.
	custB, adrB := visit(keyB, map[string]any{"latitude": 8.496612, "longitude": 7.267512, "accuracy": 9}, reused, scenePhoto(3))

	r, _ := status(t, keyA, custA)
	a := addressEvidence(t, r.Env.Data)
	if m := a.message("SHORT_VISIT"); !strings.HasPrefix(m, "warning: The visit lasted ") || !strings.Contains(m, "under 3 min") {
		t.Errorf("lender A's short visit: %q in %s", m, r.Body)
	}
	if a.message("PHOTO_REUSED") != "" || a.message("IMPOSSIBLE_TRAVEL") != "" {
		t.Errorf("lender A's first visit is flagged for what came after it: %s", r.Body)
	}
	r, _ = status(t, keyB, custB)
	b := addressEvidence(t, r.Env.Data)
	if m := b.message("PHOTO_REUSED"); m != "critical: Photo 1 (building front) matches a photo submitted for another address." {
		t.Errorf("lender B's reused photo: %q in %s", m, r.Body)
	}
	if m := b.message("IMPOSSIBLE_TRAVEL"); !strings.HasPrefix(m, "critical: Checked in 299.") || !strings.Contains(m, "previous completed visit") {
		t.Errorf("lender B's impossible travel: %q in %s", m, r.Body)
	}
	if b.message("SHORT_VISIT") == "" || len(b.Flags) == 0 {
		t.Errorf("lender B's short visit: %s", r.Body)
	}
	for _, other := range []string{orgA, custA, adrA} {
		if strings.Contains(string(r.Body), other) {
			t.Errorf("lender B's status shows lender A's %s: %s", other, r.Body)
		}
	}

	// (A live webhook needs https; services/webhook's
	// TestVerificationEventsAreDeliveredSigned shows the sentences passed
	// on as the event carries them.)

	// Operations see which photo, address and lender it matched, and the
	// visits' trails.
	ev := P.Do(t, harness.Request{Method: "GET", URL: P.URLs["verification"] + "/admin/v1/tasks/" + adrA + "/evidence", Key: harness.AdminToken})
	var e struct {
		PhotoMatches []struct{ AddressID, OrganizationID, MatchedAddressID, MatchedOrganizationID, Kind string }
		Visits       []struct{ SecondsOnSite *float64 }
	}
	ev.Decode(t, &e)
	if len(e.PhotoMatches) != 1 || e.PhotoMatches[0].AddressID != adrB || e.PhotoMatches[0].OrganizationID != orgB ||
		e.PhotoMatches[0].MatchedAddressID != adrA || e.PhotoMatches[0].MatchedOrganizationID != orgA || e.PhotoMatches[0].Kind != "SAME_FILE" ||
		len(e.Visits) != 1 || e.Visits[0].SecondsOnSite == nil {
		t.Fatalf("operations' evidence: %d %s", ev.Status, ev.Body)
	}
}

// agentVisit creates a live customer at addr with key, waits for it to be
// assigned, and has the agent check in at `at`, upload the photos and
// complete VERIFIED there at once.
func agentVisit(t *testing.T, agent *fieldAgent, key string, addr, at map[string]any, photos ...[]byte) (customerID, addressID string) {
	t.Helper()
	c := create(t, key, newCustomer(map[string]any{"addresses": []map[string]any{addr}}))
	waitAddress(t, key, c.ID, "ASSIGNED")
	adr := c.Addresses[0].ID
	if r := agent.call("POST", "/tasks/"+adr+"/check-in", at, uuid.NewString()); r.Status != http.StatusOK {
		t.Fatalf("check-in: %d %s", r.Status, r.Body)
	}
	for i, p := range photos {
		agent.upload(adr, []string{"building_front", "street_view"}[i], p)
	}
	done := map[string]any{"outcome": "VERIFIED", "verifiedAddress": "3 Unity Road, Ilorin", "latitude": at["latitude"],
		"longitude": at["longitude"], "accuracy": 8}
	if r := agent.call("POST", "/tasks/"+adr+"/complete", done, uuid.NewString()); r.Status != http.StatusOK {
		t.Fatalf("complete: %d %s", r.Status, r.Body)
	}
	waitOverall(t, key, c.ID, "VERIFIED")
	return c.ID, adr
}
