package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/segmentio/kafka-go"

	"github.com/kycfield/kyc/e2e/harness"
	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/eventually"
	"github.com/kycfield/kyc/pkg/exiftest"
	"github.com/kycfield/kyc/pkg/kafkabus"
	"github.com/kycfield/kyc/pkg/kafkatest"
)

// setReviewPolicy puts an organization on a review policy as auth-billing
// announces it (organization.settings_changed on the auth topic), and
// waits until every consumer of the topic, verification's among them, is
// past it.
//
// It publishes the event itself: auth-billing's admin API for the policy
// (PUT /admin/v1/orgs/{id}/review-policy, kycctl orgs review-policy) is
// built on another branch; once it is on main this helper should call it.
func setReviewPolicy(t *testing.T, orgID, plan, policy string) {
	t.Helper()
	w := kafkabus.NewWriter(P.Bus)
	defer w.Close()
	topic := P.Bus.Topic(event.TopicAuth)
	// A version above any auth-billing gives a fresh organization.
	data, _ := json.Marshal(map[string]any{"id": orgID, "name": "Review Test Lending", "plan": plan, "version": 1_000_000,
		"reviewPolicy": policy, "slaHours": 72})
	raw, _ := json.Marshal(event.Event{ID: uuid.NewString(), Type: "organization.settings_changed", Time: time.Now().UTC(),
		OrgID: orgID, Environment: "", Data: data})
	if err := w.WriteMessages(context.Background(), kafka.Message{Topic: topic, Key: []byte(orgID), Value: raw}); err != nil {
		t.Fatal(err)
	}
	kafkatest.Barrier(t, P.Bus, topic, orgID, 30*time.Second)
}

// ekitiVisit is a visit in Ado-Ekiti (a state no other test sends work
// to): check-in at `at`, two photos taken where photoAt says, complete
// VERIFIED. Positions carry a phone's 6 decimals.
func ekitiVisit(t *testing.T, a *fieldAgent, adr string, at, photoAt [2]float64) harness.Response {
	t.Helper()
	fix := map[string]any{"latitude": at[0], "longitude": at[1], "accuracy": 9}
	if r := a.call("POST", "/tasks/"+adr+"/check-in", fix, uuid.NewString()); r.Status != http.StatusOK {
		t.Fatalf("check-in: %d %s", r.Status, r.Body)
	}
	for i, tag := range []string{"building_front", "street_view"} {
		pos := at
		if i == 0 {
			pos = photoAt
		}
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		_ = mw.WriteField("tag", tag)
		_ = mw.WriteField("latitude", strconv.FormatFloat(pos[0], 'f', 6, 64))
		_ = mw.WriteField("longitude", strconv.FormatFloat(pos[1], 'f', 6, 64))
		_ = mw.WriteField("accuracy", "9")
		fw, _ := mw.CreateFormFile("file", "photo.jpg")
		_, _ = fw.Write(exiftest.Scene(rand.Uint64(), 36, 90))
		_ = mw.Close()
		r := P.Do(t, harness.Request{Method: "POST", URL: P.GatewayURL + "/agent/v1/tasks/" + adr + "/photos", Body: body.Bytes(),
			Header: map[string]string{"Authorization": "Bearer " + a.token, "Content-Type": mw.FormDataContentType(), "Idempotency-Key": uuid.NewString()}})
		if r.Status != http.StatusCreated {
			t.Fatalf("photo: %d %s", r.Status, r.Body)
		}
	}
	done := map[string]any{"outcome": "VERIFIED", "verifiedAddress": "14 Ajilosun Street, Ado-Ekiti", "latitude": at[0] + 0.000021,
		"longitude": at[1], "accuracy": 8, "notes": "Met the customer at the shop."}
	return a.call("POST", "/tasks/"+adr+"/complete", done, uuid.NewString())
}

// reviewAdmin calls the review queue with the operators' token (what
// kycctl reviews does).
func reviewAdmin(t *testing.T, method, path string, body any) harness.Response {
	t.Helper()
	return P.Do(t, harness.Request{Method: method, URL: P.URLs["verification"] + path, Key: harness.AdminToken, Body: body})
}

// outboxDrained waits until verification has published every event about
// the customer: its own record that nothing is left to send.
func outboxDrained(t *testing.T, customerID string) {
	t.Helper()
	c, err := pgx.Connect(context.Background(), P.DatabaseURLs["verification"])
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	eventually.True(t, 20*time.Second, "verification's outbox for "+customerID+" published", func() bool {
		var n int
		err := c.QueryRow(context.Background(), `SELECT count(*) FROM outbox WHERE msg_key = $1 AND published_at IS NULL`, customerID).Scan(&n)
		return err == nil && n == 0
	})
}

// lenderEvents counts the events of a type about a customer in the
// lender's events API (what webhooks deliver).
func lenderEvents(t *testing.T, key, customerID, typ string) int {
	t.Helper()
	return len(listAllEvents(t, key, url.Values{"type": {typ}, "customerId": {customerID}}, 100))
}

// TestReviewBeforeRelease: with the organization on FLAGGED, a visit with
// a photo 17 km away lands in review: the lender sees the customer
// IN_PROGRESS and the address IN_REVIEW, with no completion event and no
// charge (after a barrier); a reviewer approves, and the lender gets
// VERIFIED, one completion event and one charge. A second flagged visit
// is sent back with REVISIT, and the note is on the agent's task.
func TestReviewBeforeRelease(t *testing.T) {
	t.Parallel()
	org := P.NewOrg(t, "growth")
	_, key := P.NewKey(t, org, "live")
	setReviewPolicy(t, org, "growth", "FLAGGED")
	agent := newAgent(t, "Funmi Adeyemi", []string{"Ekiti"}, []string{"Ado Ekiti"})
	addr := map[string]any{"streetNumber": "14", "streetName": "Ajilosun Street", "city": "Ado-Ekiti", "lga": "Ado Ekiti", "state": "Ekiti"}
	site := [2]float64{7.621234 + float64(rand.IntN(999))*1e-6, 5.221345}
	far := [2]float64{site[0] + 0.153, site[1]} // 17 km north

	c := create(t, key, newCustomer(map[string]any{"addresses": []map[string]any{addr}}))
	adr := c.Addresses[0].ID
	waitAddress(t, key, c.ID, "ASSIGNED")
	r := ekitiVisit(t, agent, adr, site, far)
	if r.Status != http.StatusOK {
		t.Fatalf("complete: %d %s", r.Status, r.Body)
	}
	s := waitAddress(t, key, c.ID, "IN_REVIEW")
	if s.OverallStatus != "IN_PROGRESS" || s.Addresses[0].VerificationData == nil || s.Addresses[0].VerificationData.VerifiedAddress != "" ||
		s.Addresses[0].VerificationData.PhotoCount != 0 {
		t.Fatalf("the lender's status while held: %+v", s)
	}
	outboxDrained(t, c.ID)
	kafkatest.Barrier(t, P.Bus, P.Bus.Topic(event.TopicVerification), org, 30*time.Second)
	if n := lenderEvents(t, key, c.ID, "verification.completed"); n != 0 {
		t.Fatalf("%d verification.completed events for a held result", n)
	}
	waitBillable(t, key, 0)

	r = reviewAdmin(t, "GET", "/admin/v1/reviews", nil)
	var q struct {
		Reviews []struct {
			AddressID, Kind, OrganizationName string
			Flags                             []struct{ Code, Severity string }
		}
	}
	r.Decode(t, &q)
	found := false
	for _, it := range q.Reviews {
		if it.AddressID == adr {
			found = it.Kind == "RESULT" && it.OrganizationName == "Review Test Lending" && hasFlag(it.Flags, "PHOTO_GPS_FAR_FROM_COMPLETION", "warning")
		}
	}
	if !found {
		t.Fatalf("the queue: %s", r.Body)
	}
	r = reviewAdmin(t, "POST", "/admin/v1/reviews/"+adr+"/decision", map[string]any{"decision": "APPROVE", "note": "Photo 1 was taken before the trip."})
	if r.Status != http.StatusOK {
		t.Fatalf("approve: %d %s", r.Status, r.Body)
	}
	s = waitOverall(t, key, c.ID, "VERIFIED")
	if s.Addresses[0].VerificationData == nil || s.Addresses[0].VerificationData.VerifiedAddress != "14 Ajilosun Street, Ado-Ekiti" {
		t.Fatalf("released: %+v", s)
	}
	waitBillable(t, key, 1)
	eventually.True(t, 20*time.Second, "one verification.completed", func() bool { return lenderEvents(t, key, c.ID, "verification.completed") == 1 })
	outboxDrained(t, c.ID)
	kafkatest.Barrier(t, P.Bus, P.Bus.Topic(event.TopicVerification), org, 30*time.Second)
	if n := lenderEvents(t, key, c.ID, "verification.completed"); n != 1 {
		t.Fatalf("%d verification.completed events; want exactly 1", n)
	}
	waitBillable(t, key, 1)

	// A second flagged visit goes back to the agent with a note.
	c2 := create(t, key, newCustomer(map[string]any{"addresses": []map[string]any{addr}}))
	adr2 := c2.Addresses[0].ID
	waitAddress(t, key, c2.ID, "ASSIGNED")
	site2 := [2]float64{site[0] + 0.000317, site[1] + 0.000211}
	if r := ekitiVisit(t, agent, adr2, site2, [2]float64{site2[0] + 0.153, site2[1]}); r.Status != http.StatusOK {
		t.Fatalf("second visit: %d %s", r.Status, r.Body)
	}
	waitAddress(t, key, c2.ID, "IN_REVIEW")
	note := "Photograph the shop front from the street, with the house number."
	r = reviewAdmin(t, "POST", "/admin/v1/reviews/"+adr2+"/decision", map[string]any{"decision": "REVISIT", "note": note})
	if r.Status != http.StatusOK {
		t.Fatalf("revisit: %d %s", r.Status, r.Body)
	}
	waitAddress(t, key, c2.ID, "ASSIGNED")
	var task *agentTask
	var tasks struct {
		Tasks []struct {
			ID         string
			ReviewNote *string
			Attempts   []any
		}
	}
	agent.call("GET", "/tasks", nil, "").Decode(t, &tasks)
	for _, x := range tasks.Tasks {
		if x.ID == adr2 {
			task = &agentTask{ID: x.ID}
			if x.ReviewNote == nil || *x.ReviewNote != note || len(x.Attempts) != 0 {
				t.Fatalf("the agent's task: %+v", x)
			}
		}
	}
	if task == nil {
		t.Fatalf("the re-visit is not on the agent's list: %+v", tasks)
	}
	if r := reviewAdmin(t, "POST", "/admin/v1/reviews/"+adr2+"/decision", map[string]any{"decision": "APPROVE"}); r.Status != http.StatusConflict ||
		r.Code() != "NOT_IN_REVIEW" {
		t.Fatalf("deciding again: %d %s", r.Status, r.Body)
	}
}

func hasFlag(flags []struct{ Code, Severity string }, code, severity string) bool {
	for _, f := range flags {
		if f.Code == code && f.Severity == severity {
			return true
		}
	}
	return false
}
