package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/kycfield/kyc/e2e/harness"
	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/eventually"
	"github.com/kycfield/kyc/pkg/kafkatest"
	"github.com/kycfield/kyc/pkg/pdftest"
)

type statusView struct {
	CustomerID       string  `json:"customerId"`
	CustomerName     string  `json:"customerName"`
	OverallStatus    string  `json:"overallStatus"`
	VerificationDate *string `json:"verificationDate"`
	Addresses        []struct {
		ID               string `json:"id"`
		Status           string `json:"status"`
		Notes            *string
		DueBy            *time.Time `json:"dueBy"`
		VerificationData *struct {
			VerifiedAddress    string   `json:"verifiedAddress"`
			VerifiedLatitude   *float64 `json:"verifiedLatitude"`
			VerifiedLongitude  *float64 `json:"verifiedLongitude"`
			AgentNotes         string   `json:"agentNotes"`
			Reason             string   `json:"reason"`
			Diagnostics        string   `json:"diagnostics"`
			PhotoCount         int      `json:"photoCount"`
			VerificationPhotos []struct {
				URL, Tag string
			} `json:"verificationPhotos"`
			Attempts []struct{ Reason string }  `json:"attempts"`
			Timeline []struct{ Status string }  `json:"timeline"`
			Agent    *struct{ ID, Name string } `json:"agent"`
		} `json:"verificationData"`
	} `json:"addresses"`
	Documents []any `json:"documents"`
}

func status(t *testing.T, key, customerID string) (harness.Response, statusView) {
	t.Helper()
	r := P.API(t, "GET", "/api/v1/verification/"+customerID+"/status", key, nil)
	var s statusView
	if r.Status == http.StatusOK {
		r.Decode(t, &s)
	}
	return r, s
}

// waitOverall polls the status endpoint until the customer's overall
// status is want.
func waitOverall(t *testing.T, key, customerID, want string) statusView {
	t.Helper()
	var s statusView
	eventually.Value(t, 20*time.Second, "overall status "+want, func() (string, bool) {
		var r harness.Response
		r, s = status(t, key, customerID)
		return fmt.Sprintf("%d %s", r.Status, r.Body), s.OverallStatus == want
	})
	return s
}

func TestSandboxVerifiesEveryAddressWithEvidence(t *testing.T) {
	t.Parallel()
	org := P.NewOrg(t, "growth")
	_, key := P.NewKey(t, org, "test")
	completed := kafkatest.Follow(t, P.Bus, P.Bus.Topic(event.TopicVerification))
	c := create(t, key, newCustomer(map[string]any{"loanId": "LN-" + phone()[5:], "loanType": "PERSONAL",
		"addresses": []map[string]any{
			{"streetNumber": "12", "streetName": "Adeola Odeku Street", "city": "Victoria Island", "state": "Lagos", "landmark": "Near the bank"},
			{"streetName": "Aminu Kano Crescent", "city": "Wuse II", "state": "FCT"},
			{"streetName": "Ogui Road", "city": "Enugu", "state": "Enugu State"},
		},
		"documents": []map[string]any{{"documentType": "ID_CARD", "fileName": "id.jpg", "fileUrl": "https://files.example.com/id.jpg", "fileType": "image/jpeg", "fileSize": 1024}},
	}))
	s := waitOverall(t, key, c.ID, "VERIFIED")
	if s.CustomerName != "Ngozi Okafor" || s.VerificationDate == nil || len(s.Addresses) != 3 || len(s.Documents) != 1 {
		t.Fatalf("status: %+v", s)
	}
	for i, a := range s.Addresses {
		d := a.VerificationData
		if a.Status != "VERIFIED" || d == nil || d.VerifiedAddress == "" || d.AgentNotes == "" || d.Agent == nil ||
			d.VerifiedLatitude == nil || *d.VerifiedLatitude < 4 || *d.VerifiedLatitude > 14 || *d.VerifiedLongitude < 2.5 || *d.VerifiedLongitude > 15 {
			t.Fatalf("address %d: %+v", i, a)
		}
		want := 2
		if i == 0 {
			want = 3 // a landmark is photographed too
		}
		if d.PhotoCount != want || len(d.VerificationPhotos) != want {
			t.Fatalf("address %d photos: %+v", i, d)
		}
		if got := []string{d.Timeline[0].Status, d.Timeline[len(d.Timeline)-1].Status}; got[0] != "PENDING" || got[1] != "VERIFIED" {
			t.Fatalf("address %d timeline: %+v", i, d.Timeline)
		}
		for _, p := range d.VerificationPhotos {
			u, err := url.Parse(p.URL)
			if err != nil || !strings.HasPrefix(u.Path, "/api/v1/verification/"+c.ID+"/photos/pho_") {
				t.Fatalf("photo URL %q", p.URL)
			}
			img := P.API(t, "GET", u.Path, key, nil)
			if img.Status != http.StatusOK || img.Header.Get("Content-Type") != "image/jpeg" || !bytes.HasPrefix(img.Body, []byte{0xFF, 0xD8}) {
				t.Fatalf("photo %s: %d %s", u.Path, img.Status, img.Header)
			}
		}
	}
	// Lagos, FCT and Enugu land in their own states.
	if lat := *s.Addresses[0].VerificationData.VerifiedLatitude; lat < 6.3 || lat > 6.8 {
		t.Errorf("Lagos latitude %v", lat)
	}
	// The customer read model follows, and the completion was published.
	waitForCustomerStatus(t, key, c.ID, "VERIFIED")
	e := completed.WaitFor(func(e event.Event) bool {
		return e.Type == "verification.completed" && strings.Contains(string(e.Data), c.ID)
	}, 15*time.Second)
	var done statusView
	if err := json.Unmarshal(e.Data, &done); err != nil || done.OverallStatus != "VERIFIED" || len(done.Addresses) != 3 ||
		done.Addresses[0].VerificationData == nil || done.Addresses[0].VerificationData.PhotoCount != 3 {
		t.Fatalf("completed event: %s", e.Data)
	}
	st := P.API(t, "GET", "/api/v1/verification/stats", key, nil)
	if !strings.Contains(string(st.Body), `"total":1,"pending":0,"verified":1,"rejected":0,"inProgress":0`) ||
		strings.Contains(string(st.Body), `"averageTurnaroundSeconds":null`) {
		t.Fatalf("stats: %s", st.Body)
	}
	// Nobody else sees the status or the photos: not the live key, not
	// another organization.
	_, live := P.NewKey(t, org, "live")
	_, other := P.NewKey(t, P.NewOrg(t, "growth"), "test")
	photo, _ := url.Parse(s.Addresses[1].VerificationData.VerificationPhotos[0].URL)
	for _, k := range []string{live, other} {
		if r, _ := status(t, k, c.ID); r.Status != http.StatusNotFound || r.Code() != "NOT_FOUND" {
			t.Errorf("status for another caller: %d %s", r.Status, r.Body)
		}
		if r := P.API(t, "GET", photo.Path, k, nil); r.Status != http.StatusNotFound {
			t.Errorf("photo for another caller: %d", r.Status)
		}
	}
	if r := P.API(t, "GET", "/api/v1/verification/stats", other, nil); !strings.Contains(string(r.Body), `"total":0`) {
		t.Errorf("another organization's stats: %s", r.Body)
	}
}

func waitForCustomerStatus(t *testing.T, key, id, want string) {
	t.Helper()
	eventually.Value(t, 15*time.Second, "customer "+id+" "+want, func() (string, bool) {
		r := P.API(t, "GET", "/api/v1/customers/"+id, key, nil)
		return string(r.Body), strings.Contains(string(r.Body), `"status":"`+want+`","reportUrl"`)
	})
}

func TestSandboxMagicValuesChooseTheOutcome(t *testing.T) {
	t.Parallel()
	_, key := P.NewKey(t, P.NewOrg(t, "growth"), "test")
	cases := []struct {
		notes, overall, address, reason string
		attempts                        int
	}{
		{"Blue gate. SANDBOX_REJECT", "REJECTED", "REJECTED", "ADDRESS_NOT_FOUND", 0},
		{"SANDBOX_REJECT_RESIDENT", "REJECTED", "REJECTED", "CUSTOMER_NOT_KNOWN_AT_ADDRESS", 0},
		{"SANDBOX_NO_ACCESS", "VERIFIED", "VERIFIED", "", 1},
	}
	for _, tc := range cases {
		t.Run(tc.notes, func(t *testing.T) {
			t.Parallel()
			c := create(t, key, newCustomer(map[string]any{"addresses": []map[string]any{
				{"streetName": "Allen Avenue", "city": "Ikeja", "state": "Lagos", "notes": tc.notes}}}))
			s := waitOverall(t, key, c.ID, tc.overall)
			a := s.Addresses[0]
			if a.Status != tc.address || a.VerificationData == nil || a.VerificationData.Reason != tc.reason || len(a.VerificationData.Attempts) != tc.attempts {
				t.Fatalf("%s: %+v", tc.notes, a)
			}
			if tc.attempts > 0 && a.VerificationData.Attempts[0].Reason != "NO_ACCESS" {
				t.Fatalf("attempt: %+v", a.VerificationData.Attempts)
			}
			if tc.reason != "" && a.VerificationData.Diagnostics == "" {
				t.Fatalf("rejection without diagnostics: %+v", a.VerificationData)
			}
			waitForCustomerStatus(t, key, c.ID, tc.overall)
		})
	}
	t.Run("SANDBOX_FLAGGED", func(t *testing.T) {
		t.Parallel()
		c := create(t, key, newCustomer(map[string]any{"addresses": []map[string]any{
			{"streetName": "Allen Avenue", "city": "Ikeja", "lga": "Ikeja", "state": "Lagos", "notes": "SANDBOX_FLAGGED"}}}))
		waitOverall(t, key, c.ID, "VERIFIED")
		r, _ := status(t, key, c.ID)
		var got struct {
			Data struct {
				Addresses []struct {
					ExpectedLocation *struct{ Precision string } `json:"expectedLocation"`
					VerificationData struct {
						Flags       []string                                   `json:"flags"`
						FlagDetails []struct{ Code, Severity, Message string } `json:"flagDetails"`
						Distance    *float64                                   `json:"distanceFromExpectedMeters"`
					} `json:"verificationData"`
				} `json:"addresses"`
			} `json:"data"`
		}
		if err := json.Unmarshal(r.Body, &got); err != nil || len(got.Data.Addresses) != 1 {
			t.Fatalf("status: %v %s", err, r.Body)
		}
		a := got.Data.Addresses[0]
		want := map[string]string{
			"FAR_FROM_EXPECTED_LOCATION": "The visit was completed 17.",
			"PHOTO_REUSED":               "Photo 1 (building front) matches a photo submitted for another address.",
		}
		if a.ExpectedLocation == nil || a.ExpectedLocation.Precision != "TOWN" || a.VerificationData.Distance == nil ||
			*a.VerificationData.Distance < 17000 || len(a.VerificationData.FlagDetails) != 2 {
			t.Fatalf("flagged sandbox address: %s", r.Body)
		}
		for _, d := range a.VerificationData.FlagDetails {
			if !strings.HasPrefix(d.Message, want[d.Code]) {
				t.Errorf("%s: %q", d.Code, d.Message)
			}
		}
		text := pdftest.Text(t, waitReport(t, key, c.ID).Body)
		for _, w := range []string{"FAR_FROM_EXPECTED_LOCATION (warning): The visit was completed 17.", "PHOTO_REUSED (critical)",
			"Expected location", "submitted this", "from completion", "GPS "} {
			if !strings.Contains(text, w) {
				t.Errorf("the report lacks %q", w)
			}
		}
	})
	t.Run("SANDBOX_STALL", func(t *testing.T) {
		t.Parallel()
		c := create(t, key, newCustomer(map[string]any{"addresses": []map[string]any{
			{"streetName": "Allen Avenue", "city": "Ikeja", "state": "Lagos", "notes": "SANDBOX_STALL"}}}))
		s := waitOverall(t, key, c.ID, "IN_PROGRESS")
		// Barrier: a customer created after it is verified, so the sandbox
		// worker has run since and passed the stalled address by.
		later := create(t, key, newCustomer(nil))
		waitOverall(t, key, later.ID, "VERIFIED")
		if _, s = status(t, key, c.ID); s.Addresses[0].Status != "ASSIGNED" || s.OverallStatus != "IN_PROGRESS" {
			t.Fatalf("stalled address moved: %+v", s)
		}
	})
}

func TestDeletingACustomerCancelsItsOpenVerification(t *testing.T) {
	t.Parallel()
	_, key := P.NewKey(t, P.NewOrg(t, "growth"), "test")
	updates := kafkatest.Follow(t, P.Bus, P.Bus.Topic(event.TopicVerification))
	c := create(t, key, newCustomer(map[string]any{"addresses": []map[string]any{
		{"streetName": "Allen Avenue", "city": "Ikeja", "state": "Lagos", "notes": "SANDBOX_STALL"}}}))
	waitOverall(t, key, c.ID, "IN_PROGRESS")
	if r := P.API(t, "DELETE", "/api/v1/customers/"+c.ID, key, nil); r.Status != http.StatusOK {
		t.Fatalf("delete: %d %s", r.Status, r.Body)
	}
	updates.WaitFor(func(e event.Event) bool {
		var d struct{ AddressID, Status string }
		return e.Type == "verification.address.updated" && json.Unmarshal(e.Data, &d) == nil &&
			d.AddressID == c.Addresses[0].ID && d.Status == "CANCELLED"
	}, 15*time.Second)
	if r, _ := status(t, key, c.ID); r.Status != http.StatusNotFound {
		t.Fatalf("status of a deleted customer: %d %s", r.Status, r.Body)
	}
	if r := P.API(t, "GET", "/api/v1/verification/stats", key, nil); !strings.Contains(string(r.Body), `"total":0,"pending":0`) {
		t.Fatalf("stats after delete: %s", r.Body)
	}
}

// Killing the verification service in the middle of a sandbox batch
// loses no address and duplicates nothing: every address reaches
// VERIFIED once after the restart.
func TestSandboxSurvivesARestartMidBatch(t *testing.T) {
	// Not parallel: it stops the verification service every other test uses.
	_, key := P.NewKey(t, P.NewOrg(t, "growth"), "test")
	// Customers keep arriving while the service stops, is down and comes
	// back: some are simulated before, some during the stop, the rest from
	// Kafka afterwards.
	ids := make(chan string, 15)
	go func() {
		defer close(ids)
		for range 15 {
			r := P.API(t, "POST", "/api/v1/customers", key, newCustomer(map[string]any{"addresses": []map[string]any{
				{"streetName": "Allen Avenue", "city": "Ikeja", "state": "Lagos"},
				{"streetName": "Awolowo Road", "city": "Ikoyi", "state": "Lagos"}}}))
			var c customerView
			if r.Status != http.StatusCreated || json.Unmarshal(r.Body, &struct{ Data *customerView }{&c}) != nil {
				t.Errorf("create: %d %s", r.Status, r.Body)
				return
			}
			ids <- c.ID
			time.Sleep(20 * time.Millisecond)
		}
	}()
	time.Sleep(60 * time.Millisecond)
	if err := P.Restart(context.Background(), "verification", func() { time.Sleep(100 * time.Millisecond) }); err != nil {
		t.Fatal(err)
	}
	for id := range ids {
		s := waitOverall(t, key, id, "VERIFIED")
		for _, a := range s.Addresses {
			verified := 0
			for _, tr := range a.VerificationData.Timeline {
				if tr.Status == "VERIFIED" {
					verified++
				}
			}
			if a.Status != "VERIFIED" || verified != 1 || a.VerificationData.PhotoCount != 2 {
				t.Fatalf("%s after restart: %+v", id, a)
			}
		}
	}
	if r := P.API(t, "GET", "/api/v1/verification/stats", key, nil); !strings.Contains(string(r.Body), `"total":15,"pending":0,"verified":15`) {
		t.Fatalf("stats after restart: %s", r.Body)
	}
}
