package pdf_test

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"time"

	"github.com/kycfield/kyc/services/reporting/internal/report"
)

// Raw identifiers: the customer context masks them before they leave it;
// the fixture hands the renderer the raw ones to prove it masks again.
const (
	rawBVN = "22212345678"
	rawNIN = "98765432109"
)

func ptr[T any](v T) *T { return &v }

// content is a realistic report: n addresses, the customer's result
// status (an address is rejected when status is REJECTED), photosPer
// photos each.
func content(n int, status string, env string) report.Content {
	at := time.Date(2026, 11, 23, 9, 30, 0, 0, time.UTC)
	o := report.Outcome{CustomerID: "cus_019a2b3c4d5e6f708192a3b4c5d6e7f8", CustomerName: "Adébísí Ọláoyè",
		OverallStatus: status, LoanID: ptr("LN-2026-0042"), LoanType: ptr("BUSINESS"), VerificationDate: &at,
		Documents: []report.Document{{ID: "doc_019a2b3c4d5e6f708192a3b4c5d6e7f8", DocumentType: "UTILITY_BILL",
			FileName: ptr("nepa-bill-october.pdf"), FileType: ptr("application/pdf"), FileSize: ptr(int64(183204)), UploadedAt: &at}}}
	for i := range n {
		o.Addresses = append(o.Addresses, address(i, status == report.Rejected && i == n-1, at))
	}
	c := report.Customer{ID: o.CustomerID, OrgID: "org_019a2b3c4d5e6f708192a3b4c5d6e7f8", Env: env, FirstName: "Adébísí",
		LastName: "Ọláoyè", Phone: "+2348031234567", Email: "adebisi@example.com", Occupation: "Textile trader",
		BVN: rawBVN, NIN: rawNIN, PassportNumber: "A07654321", LoanID: "LN-2026-0042", LoanType: "BUSINESS"}
	r := report.Report{ID: "rep_019a2b3c4d5e6f708192a3b4c5d6e7f8", CustomerID: o.CustomerID, OrgID: c.OrgID, Env: env,
		Version: 2, Status: status, Code: "ABCDEFGHIJKLMNOPQRSTUVWX", GeneratedAt: at.Add(time.Minute)}
	photos := map[string][]byte{}
	for _, a := range o.Addresses {
		for i, p := range a.VerificationData.Photos {
			photos[p.ID] = thumbnail(i)
		}
	}
	return report.Content{Report: r, Customer: c, Outcome: o, OrgName: "Acme Lending Ltd",
		VerifyURL: "https://api.example.com/api/v1/reports/verify/" + r.Code, Sandbox: env == report.EnvTest, Photos: photos}
}

// thumbnail is a 480x360 JPEG like the evidence package makes: sky, a
// green building, ground; the colours vary with n.
func thumbnail(n int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 480, 360))
	for y := range 360 {
		for x := range 480 {
			c := color.RGBA{135, 190, 235, 255}
			switch {
			case y > 250:
				c = color.RGBA{90, 90, 95, 255}
			case x > 150 && x < 330 && y > 100:
				c = color.RGBA{30, uint8(120 + 40*n), 60, 255}
			}
			img.SetRGBA(x, y, c)
		}
	}
	var b bytes.Buffer
	_ = jpeg.Encode(&b, img, &jpeg.Options{Quality: 78})
	return b.Bytes()
}

var streets = []string{"Adeola Odeku Street", "Aminu Kano Crescent", "Ogui Road", "Allen Avenue", "Chụkwụemeka Ọkọrọ Close"}

func address(i int, rejected bool, at time.Time) report.Address {
	visited := at.Add(-time.Duration(i+1) * time.Hour)
	a := report.Address{ID: fmt.Sprintf("adr_019a2b3c4d5e6f708192a3b4c5d6e7f%d", i), Label: ptr(fmt.Sprintf("Home %d", i+1)),
		StreetNumber: ptr(fmt.Sprint(10 + i)), StreetName: streets[i%len(streets)], Landmark: ptr("Opposite the First Bank branch"),
		City: "Ikeja", LGA: ptr("Ikeja"), State: "Lagos", Country: "Nigeria", Notes: ptr("Blue gate, ask for Mama Tunde"),
		Status: report.Verified, ExpectedLocation: &report.Expected{Latitude: 6.605874, Longitude: 3.349149, Precision: "TOWN"}}
	v := &report.VerificationData{VerifiedAddress: fmt.Sprintf("%d %s, Ikeja, Lagos", 10+i, streets[i%len(streets)]),
		VerifiedAt: &visited, VerifiedLatitude: ptr(6.601838 + float64(i)/1000), VerifiedLongitude: ptr(3.351486),
		GPSAccuracyMeters: ptr(8.0), DistanceFromCheckInMeters: ptr(23.0), AgentNotes: "Met the customer's brother; shop on the ground floor.",
		Agent:     &report.Agent{ID: "agt_019a2b3c4d5e6f708192a3b4c5d6e7f8", Name: "Tunde Bakare"},
		Building:  &report.Building{Type: "Bungalow", Colour: "Cream", GatePresent: ptr(true)},
		Resident:  &report.Resident{Name: "Chidi Eze", Relationship: "Brother", YearsAtAddress: ptr(4)},
		Neighbour: &report.Neighbour{Confirmed: true, Notes: "Shop owner next door"},
		Flags:     []string{"LOW_GPS_ACCURACY"},
		FlagDetails: []report.FlagDetail{{Code: "LOW_GPS_ACCURACY", Severity: "info",
			Message: "The completion fix was accurate to only 80 m (worse than 50 m)."}},
		DistanceFromExpectedMeters: ptr(520.0),
		Attempts:                   []report.Attempt{{At: ptr(visited.Add(-24 * time.Hour)), Reason: "NO_ACCESS", Notes: "Gate locked", By: "agt_019a2b3c4d5e6f708192a3b4c5d6e7f8"}}}
	v.CheckIn = &report.Fix{Latitude: *v.VerifiedLatitude - 0.0002, Longitude: 3.351486, AccuracyMeters: ptr(12.0), At: ptr(visited.Add(-20 * time.Minute))}
	for j, tag := range []string{"building_front", "street_view", "landmark"} {
		v.Photos = append(v.Photos, report.Photo{ID: fmt.Sprintf("pho_%032x", i*10+j), URL: fmt.Sprintf("https://api.example.com/p/%d/%d", i, j),
			Tag: tag, CapturedAt: &visited, Latitude: ptr(*v.VerifiedLatitude + float64(j)*0.0001), Longitude: ptr(3.351486 + float64(j)*0.0001),
			DistanceFromCompletionMeters: ptr(float64(j) * 15)})
	}
	if rejected {
		a.Status = report.Rejected
		v.Reason, v.Diagnostics = "CUSTOMER_MOVED", "Neighbours say the customer moved to Abuja in March."
	}
	a.VerificationData = v
	return a
}
