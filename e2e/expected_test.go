package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/kycfield/kyc/pkg/pdftest"
)

// TestLiveVisitFarFromTheExpectedLocation: an agent completes a live
// visit 17.2 km north of the town the address names. The lender reads
// the distance and the flag's sentence on the status endpoint, and the
// report prints the sentence, each photo's coordinates, the agent's
// declaration, and draws the position diagram.
func TestLiveVisitFarFromTheExpectedLocation(t *testing.T) {
	t.Parallel()
	// Jebba is a town of Moro LGA (Kwara): the expected location is the
	// town's point (9.11972, 4.8236), precision TOWN, threshold 5 km.
	lga := "Moro" // each live test of Kwara has its own LGA, so its own agent gets the task
	agent := newAgent(t, "Sadiq Abubakar", []string{"Kwara"}, []string{lga})
	_, key := P.NewKey(t, P.NewOrg(t, "growth"), "live")
	addr := map[string]any{"streetNumber": "9", "streetName": "Market Road", "city": "Jebba", "lga": lga, "state": "Kwara"}
	at := map[string]any{"latitude": 9.119720 + 17.2/111.2, "longitude": 4.823600, "accuracy": 9}
	custID, _ := agentVisit(t, agent, key, addr, at, scenePhoto(41), scenePhoto(42))

	r, _ := status(t, key, custID)
	var s struct {
		Data struct {
			Addresses []struct {
				ExpectedLocation struct {
					Latitude, Longitude float64
					Precision           string
				} `json:"expectedLocation"`
				VerificationData struct {
					Distance    float64                                    `json:"distanceFromExpectedMeters"`
					FlagDetails []struct{ Code, Severity, Message string } `json:"flagDetails"`
					Photos      []struct {
						Latitude, Longitude *float64
					} `json:"verificationPhotos"`
				} `json:"verificationData"`
			} `json:"addresses"`
		} `json:"data"`
	}
	if err := json.Unmarshal(r.Body, &s); err != nil || len(s.Data.Addresses) != 1 {
		t.Fatalf("status: %v %s", err, r.Body)
	}
	a := s.Data.Addresses[0]
	if a.ExpectedLocation.Precision != "TOWN" || a.VerificationData.Distance < 17000 || a.VerificationData.Distance > 17400 {
		t.Fatalf("expected location and distance: %s", r.Body)
	}
	var sentence string
	for _, d := range a.VerificationData.FlagDetails {
		if d.Code == "FAR_FROM_EXPECTED_LOCATION" {
			sentence = d.Message
		}
	}
	if want := "The visit was completed 17.2 km from where the address should be (the centre of Jebba; more than 5.0 km)."; sentence != want {
		t.Fatalf("FAR_FROM_EXPECTED_LOCATION: %q, want %q (%s)", sentence, want, r.Body)
	}

	pdf := waitReport(t, key, custID).Body
	text := strings.Join(strings.Fields(pdftest.Text(t, pdf)), " ")
	want := []string{"FAR_FROM_EXPECTED_LOCATION (warning): " + sentence, "Sadiq Abubakar (", "submitted this visit on", "Expected location", "Check-in"}
	for _, p := range a.VerificationData.Photos {
		if p.Latitude == nil {
			t.Fatalf("a live photo without a position: %s", r.Body)
		}
		want = append(want, fmt.Sprintf("GPS %.6f, %.6f", *p.Latitude, *p.Longitude))
	}
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("the report lacks %q", w)
		}
	}
	if n := pdftest.Pixels(t, pdf, 50, checkInAmber); n < 4 {
		t.Errorf("the report's pages show no check-in marker of the position diagram (%d amber pixels)", n)
	}
}

// checkInAmber is the diagram's check-in marker colour, which nothing
// else in a VERIFIED report uses.
var checkInAmber = pdftest.Colour{R: [2]uint8{166, 194}, G: [2]uint8{96, 124}, B: [2]uint8{0, 29}}
