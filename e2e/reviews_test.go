package e2e

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/e2e/harness"
	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/eventually"
	"github.com/kycfield/kyc/pkg/exiftest"
	"github.com/kycfield/kyc/pkg/kafkatest"
)

// setReviewPolicy puts an organization on a review policy through
// auth-billing's admin API (kycctl orgs review-policy), then waits until
// verification has it: auth-billing's outbox has published the
// organization.settings_changed event, and every consumer of the auth
// topic is past a barrier written after it.
func setReviewPolicy(t *testing.T, orgID, policy string) {
	t.Helper()
	if r := P.Admin(t, "PUT", "/admin/v1/orgs/"+orgID+"/review-policy", map[string]any{"reviewPolicy": policy}); r.Status != http.StatusOK {
		t.Fatalf("review policy: %d %s", r.Status, r.Body)
	}
	outboxDrained(t, "auth-billing", orgID)
	kafkatest.Barrier(t, P.Bus, P.Bus.Topic(event.TopicAuth), orgID, 30*time.Second)
}

// ebonyiVisit is a visit in Afikpo, Ebonyi (a state no other test sends
// work to: the agent app's tests have Ekiti, and a task sent back there
// showed up on their agent's list): check-in at `at`, two photos taken
// where photoAt says, complete VERIFIED. Positions carry a phone's 6 decimals.
func ebonyiVisit(t *testing.T, a *fieldAgent, adr string, at, photoAt [2]float64) harness.Response {
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
	done := map[string]any{"outcome": "VERIFIED", "verifiedAddress": "14 Ajilosun Street, Afikpo", "latitude": at[0] + 0.000021,
		"longitude": at[1], "accuracy": 8, "notes": "Met the customer at the shop."}
	return a.call("POST", "/tasks/"+adr+"/complete", done, uuid.NewString())
}

// reviewAdmin calls the review queue with the operators' token (what
// kycctl reviews does).
func reviewAdmin(t *testing.T, method, path string, body any) harness.Response {
	t.Helper()
	return P.Do(t, harness.Request{Method: method, URL: P.URLs["verification"] + path, Key: harness.AdminToken, Body: body})
}

// outboxDrained waits until a service has published every event under a
// key (a customer, an organization): its own record that nothing is left
// to send.
func outboxDrained(t *testing.T, service, key string) {
	t.Helper()
	c, err := pgx.Connect(context.Background(), P.DatabaseURLs[service])
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	eventually.True(t, 20*time.Second, service+"'s outbox for "+key+" published", func() bool {
		var n int
		err := c.QueryRow(context.Background(), `SELECT count(*) FROM outbox WHERE msg_key = $1 AND published_at IS NULL`, key).Scan(&n)
		return err == nil && n == 0
	})
}

// lenderEvents counts the events of a type about a customer in the
// lender's events API (what webhooks deliver).
func lenderEvents(t *testing.T, key, customerID, typ string) int {
	t.Helper()
	return len(listAllEvents(t, key, url.Values{"type": {typ}, "customerId": {customerID}}, 100))
}

// staffMember signs a new member of role in with an API client (cookie
// and CSRF token), created by a fresh admin; it returns the client, the
// member's email and TOTP secret, and the admin's client.
func staffMember(t *testing.T, role, name string) (*browser, string, string, *browser) {
	t.Helper()
	_, adminLink := bootstrapAdmin(t)
	admin, _ := enrolByAPI(t, adminLink)
	email := fmt.Sprintf("%s%d@ops.kycfield.ng", role, rand.Int64())
	r := admin.call("POST", "/ops/v1/staff", map[string]any{"email": email, "name": name, "role": role})
	if r.Status != http.StatusCreated {
		t.Fatalf("create %s: %d %s", role, r.Status, r.Body)
	}
	var d struct{ EnrolURL string }
	r.Decode(t, &d)
	b, secret := enrolByAPI(t, d.EnrolURL)
	return b, email, secret, admin
}

// TestReviewBeforeRelease: with the organization on FLAGGED, a visit with
// a photo 17 km away lands in review: the lender sees the customer
// IN_PROGRESS and the address IN_REVIEW, with no completion event and no
// charge (after a barrier); a reviewer approves in the console, and the
// lender gets VERIFIED, one completion event and one charge. A second
// flagged visit is sent back with REVISIT through the API, and the note is
// on the agent's task in the agent app.
func TestReviewBeforeRelease(t *testing.T) {
	t.Parallel()
	org := P.NewOrg(t, "growth")
	_, key := P.NewKey(t, org, "live")
	setReviewPolicy(t, org, "FLAGGED")
	agentID, ph, code := agentWithCode(t, P, "Funmi Adeyemi", []string{"Ebonyi"}, []string{"Afikpo North"})
	agent := &fieldAgent{t: t, id: agentID, token: signInAgent(t, P, ph, code)}
	reviewer, revEmail, revSecret, admin := staffMember(t, "reviewer", "Chidi Eze")
	addr := map[string]any{"streetNumber": "14", "streetName": "Ajilosun Street", "city": "Afikpo", "lga": "Afikpo North", "state": "Ebonyi"}
	site := [2]float64{5.891234 + float64(rand.IntN(999))*1e-6, 7.934345}
	far := [2]float64{site[0] + 0.153, site[1]} // 17 km north

	c := create(t, key, newCustomer(map[string]any{"addresses": []map[string]any{addr}}))
	adr := c.Addresses[0].ID
	waitAddress(t, key, c.ID, "ASSIGNED")
	if r := ebonyiVisit(t, agent, adr, site, far); r.Status != http.StatusOK {
		t.Fatalf("complete: %d %s", r.Status, r.Body)
	}
	s := waitAddress(t, key, c.ID, "IN_REVIEW")
	if s.OverallStatus != "IN_PROGRESS" || s.Addresses[0].VerificationData == nil || s.Addresses[0].VerificationData.VerifiedAddress != "" ||
		s.Addresses[0].VerificationData.PhotoCount != 0 {
		t.Fatalf("the lender's status while held: %+v", s)
	}
	outboxDrained(t, "verification", c.ID)
	kafkatest.Barrier(t, P.Bus, P.Bus.Topic(event.TopicVerification), org, 30*time.Second)
	if n := lenderEvents(t, key, c.ID, "verification.completed"); n != 0 {
		t.Fatalf("%d verification.completed events for a held result", n)
	}
	waitBillable(t, key, 0)

	// The queue, through the gateway with the reviewer's session; an API
	// key and a lender's session never reach it.
	r := reviewer.call("GET", "/ops/v1/reviews?limit=100", nil)
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
			found = it.Kind == "RESULT" && it.OrganizationName != "" && hasFlag(it.Flags, "PHOTO_GPS_FAR_FROM_COMPLETION", "warning")
		}
	}
	if !found {
		t.Fatalf("the queue: %d %s", r.Status, r.Body)
	}
	if r := P.API(t, "GET", "/ops/v1/reviews", key, nil); r.Status != http.StatusUnauthorized || r.Code() != "STAFF_SESSION_REQUIRED" {
		t.Fatalf("an API key on the queue: %d %s", r.Status, r.Body)
	}
	// kycctl reads the same evidence with the operators' token.
	if r := reviewAdmin(t, "GET", "/admin/v1/reviews/"+adr, nil); r.Status != http.StatusOK {
		t.Fatalf("the evidence with the admin token: %d %s", r.Status, r.Body)
	}

	// The reviewer approves in the console, by keyboard.
	rv := &dashPage{newChromium(t, "ops")}
	rv.do(chromedp.EmulateViewport(1280, 1000), chromedp.Navigate(P.GatewayURL+"/ops/"), chromedp.WaitVisible(chromedp.ID("email")))
	rv.do(chromedp.Focus(chromedp.ID("email")), chromedp.KeyEvent(revEmail), chromedp.KeyEvent("\t"), chromedp.KeyEvent(staffPassword),
		chromedp.KeyEvent("\t"), chromedp.KeyEvent(totpCode(t, revSecret, time.Now().Add(30*time.Second))), chromedp.KeyEvent("\r"))
	rv.seeIn("whoami", "Chidi Eze · reviewer")
	rv.do(chromedp.Navigate(P.GatewayURL + "/ops/#/reviews"))
	rv.do(chromedp.WaitVisible(chromedp.CSS(`tr[data-address="` + adr + `"]`)))
	rv.shot("06-reviews-queue")
	rv.do(tap(chromedp.CSS(`tr[data-address="` + adr + `"] button`)))
	rv.see("What was submitted")
	rv.see("17.0 km from the completion")
	rv.see("Warning: Photo 1 (building front) was taken 17.0 km")
	rv.do(chromedp.WaitVisible(chromedp.CSS(`.photos img[src^="blob:"]`)))
	rv.shot("07-review-evidence")
	rv.do(chromedp.Focus(chromedp.ID("rv-note")), chromedp.KeyEvent("Photo 1 was taken before the trip; the rest is on site."),
		chromedp.Focus(chromedp.ID("rv-submit")), chromedp.KeyEvent("\r"))
	rv.seeIn("rv-result", "the address is now VERIFIED")
	rv.shot("08-review-decided")

	s = waitOverall(t, key, c.ID, "VERIFIED")
	if s.Addresses[0].VerificationData == nil || s.Addresses[0].VerificationData.VerifiedAddress != "14 Ajilosun Street, Afikpo" {
		t.Fatalf("released: %+v", s)
	}
	waitBillable(t, key, 1)
	eventually.True(t, 20*time.Second, "one verification.completed", func() bool { return lenderEvents(t, key, c.ID, "verification.completed") == 1 })
	outboxDrained(t, "verification", c.ID)
	kafkatest.Barrier(t, P.Bus, P.Bus.Topic(event.TopicVerification), org, 30*time.Second)
	if n := lenderEvents(t, key, c.ID, "verification.completed"); n != 1 {
		t.Fatalf("%d verification.completed events; want exactly 1", n)
	}
	waitBillable(t, key, 1)
	if r := reviewer.call("POST", "/ops/v1/reviews/"+adr+"/decision", map[string]any{"decision": "APPROVE"}); r.Status != http.StatusConflict ||
		r.Code() != "NOT_IN_REVIEW" {
		t.Fatalf("deciding again: %d %s", r.Status, r.Body)
	}

	// A second flagged visit goes back to the agent with a note.
	c2 := create(t, key, newCustomer(map[string]any{"firstName": "Yetunde", "addresses": []map[string]any{addr}}))
	adr2 := c2.Addresses[0].ID
	waitAddress(t, key, c2.ID, "ASSIGNED")
	site2 := [2]float64{site[0] + 0.000317, site[1] + 0.000211}
	if r := ebonyiVisit(t, agent, adr2, site2, [2]float64{site2[0] + 0.153, site2[1]}); r.Status != http.StatusOK {
		t.Fatalf("second visit: %d %s", r.Status, r.Body)
	}
	waitAddress(t, key, c2.ID, "IN_REVIEW")
	note := "Photograph the shop front from the street, with the house number."
	if r := reviewer.call("POST", "/ops/v1/reviews/"+adr2+"/decision", map[string]any{"decision": "REVISIT", "note": note}); r.Status != http.StatusOK {
		t.Fatalf("revisit: %d %s", r.Status, r.Body)
	}
	s = waitAddress(t, key, c2.ID, "ASSIGNED")
	if a := s.Addresses[0].VerificationData; a == nil || len(a.Attempts) != 0 {
		t.Fatalf("a REVISIT counted as an attempt: %+v", s)
	}
	var tasks struct {
		Tasks []struct {
			ID         string
			ReviewNote *string
		}
	}
	agent.call("GET", "/tasks", nil, "").Decode(t, &tasks)
	if i := slices.IndexFunc(tasks.Tasks, func(x struct {
		ID         string
		ReviewNote *string
	}) bool {
		return x.ID == adr2
	}); i < 0 || tasks.Tasks[i].ReviewNote == nil || *tasks.Tasks[i].ReviewNote != note {
		t.Fatalf("the agent's tasks: %+v", tasks)
	}

	// The audit log lists both decisions, by the reviewer.
	for _, want := range [][2]string{{"review.approve", adr}, {"review.revisit", adr2}} {
		eventually.True(t, 30*time.Second, want[0]+" in the audit log", func() bool {
			r := admin.call("GET", "/ops/v1/audit?action="+want[0]+"&orgId="+org, nil)
			var d struct {
				Entries []struct{ ActorName, Action, Target string }
			}
			r.Decode(t, &d)
			return slices.ContainsFunc(d.Entries, func(e struct{ ActorName, Action, Target string }) bool {
				return e.Action == want[0] && e.Target == want[1] && e.ActorName == "Chidi Eze"
			})
		})
	}

	// The agent app shows the note on the task's card.
	var fresh struct{ Code string }
	P.Do(t, harness.Request{Method: "POST", URL: P.URLs["verification"] + "/admin/v1/agents/" + agentID + "/code", Key: harness.AdminToken}).Decode(t, &fresh)
	app := newChromium(t, "ops")
	app.do(chromedp.EmulateViewport(360, 800, chromedp.EmulateMobile, chromedp.EmulateTouch, chromedp.EmulatePortrait),
		chromedp.Navigate(P.GatewayURL+"/agent/"), chromedp.WaitVisible(chromedp.ID("phone")),
		chromedp.SendKeys(chromedp.ID("phone"), ph), chromedp.SendKeys(chromedp.ID("code"), fresh.Code+"\r"))
	app.see("Today's tasks")
	app.see("Reviewer's note: " + note)
	app.shot("09-agent-review-note")
}

func hasFlag(flags []struct{ Code, Severity string }, code, severity string) bool {
	for _, f := range flags {
		if f.Code == code && f.Severity == severity {
			return true
		}
	}
	return false
}
