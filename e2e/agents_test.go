package e2e

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/jpeg"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kycfield/kyc/e2e/harness"
	"github.com/kycfield/kyc/pkg/exiftest"
)

// fieldAgent is a signed-in agent driving the gateway's /agent/v1 API.
type fieldAgent struct {
	t         *testing.T
	id, token string
}

// agentWithCode creates an agent on p through the verification service's
// admin API and issues its one-time sign-in code.
func agentWithCode(t *testing.T, p *harness.Platform, name string, states, lgas []string) (id, ph, code string) {
	t.Helper()
	admin := func(method, path string, body any) harness.Response {
		return p.Do(t, harness.Request{Method: method, URL: p.URLs["verification"] + path, Key: harness.AdminToken, Body: body})
	}
	ph = phone()
	r := admin("POST", "/admin/v1/agents", map[string]any{"name": name, "phone": ph, "states": states, "lgas": lgas})
	if r.Status != http.StatusCreated {
		t.Fatalf("create agent: %d %s", r.Status, r.Body)
	}
	var a struct{ ID string }
	r.Decode(t, &a)
	// Tests give their agents real LGAs, which the next run (-count) on
	// the shared platform uses again: disabling the agent afterwards keeps
	// it out of that run.
	if p == P {
		t.Cleanup(func() { admin("POST", "/admin/v1/agents/"+a.ID+"/disable", nil) })
	}
	var c struct{ Code string }
	admin("POST", "/admin/v1/agents/"+a.ID+"/code", nil).Decode(t, &c)
	return a.ID, ph, c.Code
}

// signInAgent exchanges a one-time code for the agent's session token
// through p's gateway.
func signInAgent(t *testing.T, p *harness.Platform, phone, code string) string {
	t.Helper()
	r := p.Do(t, harness.Request{Method: "POST", URL: p.GatewayURL + "/agent/v1/session", Body: map[string]any{"phone": phone, "code": code}})
	if r.Status != http.StatusCreated {
		t.Fatalf("sign in: %d %s", r.Status, r.Body)
	}
	var s struct{ Token string }
	r.Decode(t, &s)
	return s.Token
}

// newAgent creates an agent through the verification service's admin API
// and signs it in through the gateway with a one-time code, which then
// no longer works (nor does a wrong one).
func newAgent(t *testing.T, name string, states, lgas []string) *fieldAgent {
	t.Helper()
	id, ph, code := agentWithCode(t, P, name, states, lgas)
	// The failures come from an address of their own, so that they do not
	// count against 127.0.0.1's sign-in allowance, which every test shares.
	elsewhere, _ := newBrowserFrom(t)
	if bad := elsewhere.call("POST", "/agent/v1/session", map[string]any{"phone": ph, "code": "000000"}); bad.Status != http.StatusUnauthorized && code != "000000" {
		t.Fatalf("wrong code: %d %s", bad.Status, bad.Body)
	}
	token := signInAgent(t, P, ph, code)
	if r := elsewhere.call("POST", "/agent/v1/session", map[string]any{"phone": ph, "code": code}); r.Status != http.StatusUnauthorized {
		t.Fatalf("a used code signed in again: %d", r.Status)
	}
	return &fieldAgent{t: t, id: id, token: token}
}

func (a *fieldAgent) call(method, path string, body any, key string) harness.Response {
	a.t.Helper()
	h := map[string]string{"Authorization": "Bearer " + a.token}
	if key != "" {
		h["Idempotency-Key"] = key
	}
	return P.Do(a.t, harness.Request{Method: method, URL: P.GatewayURL + "/agent/v1" + path, Body: body, Header: h})
}

type agentTask struct {
	ID            string `json:"id"`
	Status        string `json:"status"`
	CustomerName  string `json:"customerName"`
	CustomerPhone string `json:"customerPhone"`
	DueAt         *string
	Attempts      []struct{ Reason string }
	MapURL        string `json:"mapUrl"`
}

func (a *fieldAgent) tasks() []agentTask {
	a.t.Helper()
	r := a.call("GET", "/tasks", nil, "")
	if r.Status != http.StatusOK {
		a.t.Fatalf("tasks: %d %s", r.Status, r.Body)
	}
	var out struct{ Tasks []agentTask }
	r.Decode(a.t, &out)
	return out.Tasks
}

// photo uploads a JPEG (with EXIF GPS at exifAt when given) for a task.
func (a *fieldAgent) photo(addressID, tag string, exifAt *[2]float64) harness.Response {
	a.t.Helper()
	body, ctype := photoForm(tag, testJPEG(exifAt))
	return P.Do(a.t, harness.Request{Method: "POST", URL: P.GatewayURL + "/agent/v1/tasks/" + addressID + "/photos", Body: body,
		Header: map[string]string{"Authorization": "Bearer " + a.token, "Content-Type": ctype, "Idempotency-Key": uuid.NewString()}})
}

// photoForm is an agent's photo upload: the file and the phone's position.
func photoForm(tag string, jpg []byte) ([]byte, string) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	_ = mw.WriteField("tag", tag)
	_ = mw.WriteField("latitude", "8.4966")
	_ = mw.WriteField("longitude", "4.5421")
	_ = mw.WriteField("accuracy", "12")
	fw, _ := mw.CreateFormFile("file", "photo.jpg")
	_, _ = fw.Write(jpg)
	_ = mw.Close()
	return body.Bytes(), mw.FormDataContentType()
}

func TestLiveFieldVerification(t *testing.T) {
	t.Parallel()
	// Kwara, where no other test puts a live address (an agent covering
	// Lagos would pick up theirs), so the LGA decides between the two.
	lga := "Ilorin West"
	ade := newAgent(t, "Adewale Johnson", []string{"Kwara"}, []string{lga})
	other := newAgent(t, "Bola Ahmed", []string{"Kwara"}, []string{"Offa"})
	org := P.NewOrg(t, "growth")
	_, live := P.NewKey(t, org, "live")
	addr := map[string]any{"streetNumber": "7", "streetName": "Taiwo Road", "city": "Ilorin", "lga": lga, "state": "Kwara", "notes": "Blue gate"}
	before := time.Now()
	c := create(t, live, newCustomer(map[string]any{"addresses": []map[string]any{addr}}))
	adr := c.Addresses[0].ID

	// Auto-assigned to the agent covering the LGA, not the other one.
	s := waitAddress(t, live, c.ID, "ASSIGNED")
	// The promise: created + the organization's SLA target (72 h by default).
	if d := s.Addresses[0].DueBy; d == nil || d.Before(before.Add(72*time.Hour-time.Second)) || d.After(time.Now().Add(72*time.Hour)) {
		t.Fatalf("dueBy %v, want 72 h after the customer was created (%s)", d, before)
	}
	tasks := ade.tasks()
	if len(tasks) != 1 || tasks[0].ID != adr || tasks[0].CustomerName != "Ngozi Okafor" || tasks[0].CustomerPhone != c.Phone ||
		!strings.HasPrefix(tasks[0].MapURL, "geo:") {
		t.Fatalf("tasks: %+v (status %+v)", tasks, s)
	}
	if got := other.tasks(); len(got) != 0 {
		t.Fatalf("the other agent sees %+v", got)
	}
	// Nobody else may act on it.
	if r := other.call("POST", "/tasks/"+adr+"/check-in", map[string]any{"latitude": 8.49, "longitude": 4.54, "accuracy": 9}, uuid.NewString()); r.Status != http.StatusNotFound {
		t.Fatalf("another agent checked in: %d %s", r.Status, r.Body)
	}
	if r := ade.call("POST", "/tasks/"+adr+"/check-in", map[string]any{"latitude": 8.49, "longitude": 4.54, "accuracy": 9}, ""); r.Status != http.StatusBadRequest {
		t.Fatalf("check-in without Idempotency-Key: %d %s", r.Status, r.Body)
	}
	// A retried check-in with the same key happens once.
	key := uuid.NewString()
	for range 2 {
		if r := ade.call("POST", "/tasks/"+adr+"/check-in", map[string]any{"latitude": 8.496612, "longitude": 4.542131, "accuracy": 9}, key); r.Status != http.StatusOK {
			t.Fatalf("check-in: %d %s", r.Status, r.Body)
		}
	}
	if r := ade.call("POST", "/tasks/"+adr+"/check-in", map[string]any{"latitude": 1, "longitude": 1, "accuracy": 9}, key); r.Code() != "IDEMPOTENCY_KEY_REUSED" {
		t.Fatalf("same key, other body: %d %s", r.Status, r.Body)
	}
	// VERIFIED needs two photos: one with EXIF GPS near the house, one
	// without (as Android browsers send them).
	if r := ade.photo(adr, "building_front", &[2]float64{8.4967, 4.5422}); r.Status != http.StatusCreated || !strings.Contains(string(r.Body), `"exif":{`) {
		t.Fatalf("photo: %d %s", r.Status, r.Body)
	}
	done := map[string]any{"outcome": "VERIFIED", "verifiedAddress": "7 Taiwo Road, Ilorin", "latitude": 8.496634, "longitude": 4.542187,
		"accuracy": 8, "notes": "Met the customer's brother", "resident": map[string]any{"name": "Chidi Okafor", "relationship": "Brother", "yearsAtAddress": 6},
		"building": map[string]any{"type": "Duplex", "colour": "White", "gatePresent": true}}
	if r := ade.call("POST", "/tasks/"+adr+"/complete", done, uuid.NewString()); r.Status != http.StatusBadRequest || !strings.Contains(string(r.Body), "photos") {
		t.Fatalf("VERIFIED with one photo: %d %s", r.Status, r.Body)
	}
	if r := ade.photo(adr, "street_view", nil); r.Status != http.StatusCreated {
		t.Fatalf("photo: %d %s", r.Status, r.Body)
	}
	key = uuid.NewString()
	for range 2 {
		if r := ade.call("POST", "/tasks/"+adr+"/complete", done, key); r.Status != http.StatusOK {
			t.Fatalf("complete: %d %s", r.Status, r.Body)
		}
	}
	s = waitOverall(t, live, c.ID, "VERIFIED")
	d := s.Addresses[0].VerificationData
	if d == nil || d.PhotoCount != 2 || d.Agent == nil || d.Agent.ID != ade.id || d.VerifiedAddress != "7 Taiwo Road, Ilorin" {
		t.Fatalf("verification data: %s", mustJSON(s))
	}
	r, _ := status(t, live, c.ID)
	raw := string(r.Body)
	for _, want := range []string{`"distanceFromCheckInMeters":`, `"relationship":"Brother"`, `"gatePresent":true`} {
		if !strings.Contains(raw, want) {
			t.Errorf("status lacks %s: %s", want, raw)
		}
	}
	// The photo without EXIF GPS is judged by the phone's own position;
	// a phone's fixes (6 decimals, an accuracy) are not suspect. (The
	// visit is seconds long: SHORT_VISIT.)
	for _, wrong := range []string{"PHOTO_GPS_FAR", "PHOTO_WITHOUT_GPS", "OUTSIDE_ADDRESS_STATE", "PHOTO_TIME_OUTSIDE_VISIT", "LOW_GPS_ACCURACY",
		"SUSPECT_LOCATION", "IMPOSSIBLE_TRAVEL"} {
		if strings.Contains(raw, wrong) {
			t.Errorf("a visit done right was flagged %s: %s", wrong, raw)
		}
	}
	if n := strings.Count(raw, `"status":"IN_PROGRESS"`); n != 1 {
		t.Errorf("the retried check-in moved the address %d times: %s", n, raw)
	}
	waitForCustomerStatus(t, live, c.ID, "VERIFIED")
	if len(ade.tasks()) != 0 {
		t.Fatal("a finished task is still listed")
	}
	waitBillable(t, live, 1)

	// No access, then verified on the re-visit.
	c2 := create(t, live, newCustomer(map[string]any{"addresses": []map[string]any{addr}}))
	adr2 := c2.Addresses[0].ID
	waitAddress(t, live, c2.ID, "ASSIGNED")
	checkIn := map[string]any{"latitude": 8.4966, "longitude": 4.5421, "accuracy": 9}
	ade.call("POST", "/tasks/"+adr2+"/check-in", checkIn, uuid.NewString())
	if r := ade.call("POST", "/tasks/"+adr2+"/complete", map[string]any{"outcome": "NO_ACCESS", "latitude": 8.4966, "longitude": 4.5421, "accuracy": 9,
		"notes": "Gate locked"}, uuid.NewString()); r.Status != http.StatusOK {
		t.Fatalf("no access: %d %s", r.Status, r.Body)
	}
	tasks = ade.tasks()
	if len(tasks) != 1 || tasks[0].Status != "ASSIGNED" || tasks[0].DueAt == nil || len(tasks[0].Attempts) != 1 || tasks[0].Attempts[0].Reason != "NO_ACCESS" {
		t.Fatalf("after no access: %+v", tasks)
	}
	ade.call("POST", "/tasks/"+adr2+"/check-in", checkIn, uuid.NewString())
	ade.photo(adr2, "building_front", &[2]float64{8.6, 4.65}) // EXIF about 15 km away
	ade.photo(adr2, "gate", nil)
	if r := ade.call("POST", "/tasks/"+adr2+"/complete", done, uuid.NewString()); r.Status != http.StatusOK {
		t.Fatalf("re-visit: %d %s", r.Status, r.Body)
	}
	waitOverall(t, live, c2.ID, "VERIFIED")
	if r, _ := status(t, live, c2.ID); !strings.Contains(string(r.Body), `"attempts":[{`) || !strings.Contains(string(r.Body), "PHOTO_GPS_FAR_FROM_COMPLETION") {
		t.Fatalf("re-visit evidence: %s", r.Body)
	}

	// Rejected with a reason.
	c3 := create(t, live, newCustomer(map[string]any{"addresses": []map[string]any{addr}}))
	adr3 := c3.Addresses[0].ID
	waitAddress(t, live, c3.ID, "ASSIGNED")
	ade.call("POST", "/tasks/"+adr3+"/check-in", checkIn, uuid.NewString())
	if r := ade.call("POST", "/tasks/"+adr3+"/complete", map[string]any{"outcome": "REJECTED", "reason": "CUSTOMER_MOVED", "latitude": 8.4966,
		"longitude": 4.5421, "accuracy": 9, "notes": "Moved to Abuja last year, says the landlord"}, uuid.NewString()); r.Status != http.StatusOK {
		t.Fatalf("reject: %d %s", r.Status, r.Body)
	}
	s = waitOverall(t, live, c3.ID, "REJECTED")
	if d := s.Addresses[0].VerificationData; d == nil || d.Reason != "CUSTOMER_MOVED" || !strings.Contains(d.Diagnostics, "landlord") {
		t.Fatalf("rejection: %s", mustJSON(s))
	}
	waitBillable(t, live, 3)
	if r := P.API(t, "GET", "/api/v1/verification/stats", live, nil); !strings.Contains(string(r.Body), `"total":3,"pending":0,"verified":2,"rejected":1`) {
		t.Fatalf("stats: %s", r.Body)
	}

	// Deleting a customer cancels its open task: it leaves the agent's list.
	c4 := create(t, live, newCustomer(map[string]any{"addresses": []map[string]any{addr}}))
	waitAddress(t, live, c4.ID, "ASSIGNED")
	if len(ade.tasks()) != 1 {
		t.Fatalf("new task not listed: %+v", ade.tasks())
	}
	P.API(t, "DELETE", "/api/v1/customers/"+c4.ID, live, nil)
	deadline := time.Now().Add(15 * time.Second)
	for len(ade.tasks()) != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("a deleted customer's task is still listed: %+v", ade.tasks())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if r := ade.call("POST", "/tasks/"+c4.Addresses[0].ID+"/check-in", checkIn, uuid.NewString()); r.Status != http.StatusNotFound && r.Code() != "INVALID_TRANSITION" {
		t.Fatalf("check-in on a cancelled task: %d %s", r.Status, r.Body)
	}

	// Disabling an agent ends its session.
	if r := P.Do(t, harness.Request{Method: "POST", URL: P.URLs["verification"] + "/admin/v1/agents/" + ade.id + "/disable", Key: harness.AdminToken}); r.Status != http.StatusOK {
		t.Fatalf("disable: %d %s", r.Status, r.Body)
	}
	if r := ade.call("GET", "/tasks", nil, ""); r.Status != http.StatusUnauthorized {
		t.Fatalf("a disabled agent still signed in: %d", r.Status)
	}
}

func waitAddress(t *testing.T, key, customerID, want string) statusView {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		r, s := status(t, key, customerID)
		if len(s.Addresses) > 0 && s.Addresses[0].Status == want {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("address never became %s: %d %s", want, r.Status, r.Body)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func waitBillable(t *testing.T, key string, want int64) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		var rep usageReport
		P.API(t, "GET", "/api/v1/billing/usage", key, nil).Decode(t, &rep)
		if rep.BillableVerifications == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("billable verifications %d, want %d", rep.BillableVerifications, want)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// testJPEG is a small JPEG; with at, it carries EXIF GPS there and a
// capture time of now, as a phone's camera app writes them.
func testJPEG(at *[2]float64) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 64, 48))
	for i := range img.Pix {
		img.Pix[i] = uint8(i)
	}
	img.Set(0, 0, color.White)
	var buf bytes.Buffer
	_ = jpeg.Encode(&buf, img, nil)
	b := buf.Bytes()
	if at == nil {
		return b
	}
	// A phone writes its wall clock, in Nigeria WAT (UTC+1).
	return exiftest.JPEG(b, exiftest.TIFF(at[0], at[1], time.Now().In(time.FixedZone("WAT", 3600))))
}
