package pdf_test

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kycfield/kyc/pkg/pdftest"
	"github.com/kycfield/kyc/services/reporting/internal/pdf"
	"github.com/kycfield/kyc/services/reporting/internal/report"
)

func render(t *testing.T, c report.Content) []byte {
	t.Helper()
	b, err := pdf.Renderer{}.Render(c)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestReportShowsEveryField reads the rendered text back with pdftotext
// and looks for every fact the issue lists, for verified and rejected
// customers with one and five addresses.
func TestReportShowsEveryField(t *testing.T) {
	cases := []struct {
		addresses int
		status    string
	}{{1, report.Verified}, {5, report.Verified}, {1, report.Rejected}, {5, report.Rejected}}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s/%d", tc.status, tc.addresses), func(t *testing.T) {
			t.Parallel()
			c := content(tc.addresses, tc.status, report.EnvLive)
			// The first address was held for review and approved.
			visited := *c.Outcome.Addresses[0].VerificationData.VerifiedAt
			c.Outcome.Addresses[0].VerificationData.Review = &report.Review{Decision: "APPROVE", ReviewedBy: "Ada Obi",
				ReviewedAt: ptr(visited.Add(time.Hour)), Note: "Photos checked against the trail."}
			b := render(t, c)
			text := pdftest.Text(t, b)
			want := []string{
				"Acme Lending Ltd", "Adébísí Ọláoyè", c.Outcome.OverallStatus, c.Report.CustomerID,
				"Phone\t+2348031234567", "adebisi@example.com", "Textile trader",
				"BVN\t***5678", "NIN\t***2109",
				"A07654321", "LN-2026-0042", "BUSINESS",
				"Verification code\tABCDEFGHIJKLMNOPQRSTUVWX", "Check at\t" + c.VerifyURL,
				"UTILITY_BILL", "nepa-bill-october.pdf", "179 KB",
				"Report rep_019a2b3c4d5e6f708192a3b4c5d6e7f8 · version 2 · generated 23 Nov 2026 09:31 UTC",
			}
			for i, a := range c.Outcome.Addresses {
				v := a.VerificationData
				want = append(want, fmt.Sprintf("Address %d of %d: Home %d", i+1, tc.addresses, i+1),
					submittedLine(a), v.VerifiedAddress, fmt.Sprintf("%.6f, %.6f (GPS accuracy ±8 m)", *v.VerifiedLatitude, *v.VerifiedLongitude),
					"State: Lagos · LGA: Ikeja · 23 m from check-in", "Opposite the First Bank branch", "Blue gate, ask for Mama Tunde",
					fmt.Sprintf("Checked in at\t%.6f, %.6f (GPS accuracy ±12 m)", v.CheckIn.Latitude, v.CheckIn.Longitude))
				for _, p := range v.Photos {
					want = append(want, fmt.Sprintf("GPS %.6f, %.6f · %.0f m from completion", *p.Latitude, *p.Longitude, *p.DistanceFromCompletionMeters))
				}
			}
			want = append(want, "Africa/Lagos (WAT)", "UTC", "Tunde Bakare (agt_019a2b3c4d5e6f708192a3b4c5d6e7f8)",
				"Met the customer's brother; shop on the ground floor.", "Chidi Eze, Brother, 4 years at the address",
				"Confirmed: Shop owner next door", "Type: Bungalow · Colour: Cream · Gate: yes",
				"Evidence flags\tLOW_GPS_ACCURACY (info): The completion fix was accurate to only 80 m",
				"Expected location\t6.605874, 3.349149 (centre of the town) · 520 m from completion", "Expected location",
				"1 without access", "NO_ACCESS: Gate", "3 taken", "1. building_front", "2. street_view", "3. landmark",
				"23 Nov 2026 09:30 WAT · 08:30 UTC", "Completion", "Check-in", "Photo n",
				"Agent's declaration\tTunde Bakare (agt_019a2b3c4d5e6f708192a3b4c5d6e7f8) submitted this",
				"Quality review\tApproved by Ada Obi, 23 Nov 2026", "Note: Photos checked against the trail.")
			if tc.status == report.Rejected {
				want = append(want, "Rejection reason\tCUSTOMER_MOVED", "Neighbours say the customer moved to Abuja in March.")
			}
			if tc.addresses == 5 {
				want = append(want, "Chụkwụemeka Ọkọrọ Close")
			}
			for _, w := range want {
				if !contains(text, w) {
					t.Errorf("the report's text lacks %q", w)
				}
			}
			pages := pdftest.Pages(t, b)
			for i, p := range pages {
				if w := fmt.Sprintf("Page %d of %d", i+1, len(pages)); !strings.Contains(p, w) {
					t.Errorf("page %d lacks %q", i+1, w)
				}
			}
			noRawIDs(t, b, text)
		})
	}
}

// contains finds w in the layout text; a tab in w stands for the gap
// between a label and its value, however wide pdftotext lays it out.
func contains(text, w string) bool {
	label, value, ok := strings.Cut(w, "\t")
	if !ok {
		return strings.Contains(text, w)
	}
	return regexp.MustCompile(regexp.QuoteMeta(label) + `[ ]{2,}` + regexp.QuoteMeta(value)).MatchString(text)
}

func submittedLine(a report.Address) string {
	return fmt.Sprintf("%s %s, Ikeja, Ikeja LGA, Lagos, Nigeria", *a.StreetNumber, a.StreetName)
}

// noRawIDs fails when the BVN or NIN appears unmasked in the text or
// anywhere in the file's bytes.
func noRawIDs(t *testing.T, pdf []byte, text string) {
	t.Helper()
	for _, raw := range []string{rawBVN, rawNIN} {
		if strings.Contains(text, raw) || bytes.Contains(pdf, []byte(raw)) {
			t.Errorf("unmasked identifier %s in the report", raw)
		}
	}
}

// TestNonLatinNamesRoundTrip: Yoruba and Igbo names come out of the text
// layer exactly as they went in.
func TestNonLatinNamesRoundTrip(t *testing.T) {
	for _, name := range [][2]string{{"Adébísí", "Ọláoyè"}, {"Chụkwụemeka", "Ọkọrọ"}} {
		c := content(1, report.Verified, report.EnvLive)
		c.Customer.FirstName, c.Customer.LastName = name[0], name[1]
		text := pdftest.Text(t, render(t, c))
		if want := "Full name\t" + name[0] + " " + name[1]; !contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
}

// TestSandboxWatermarkOnEveryPage renders every page of a sandbox report
// and of the same report in live, and counts the watermark's faint red
// pixels: a reader sees the mark on each sandbox page and none in live.
func TestSandboxWatermarkOnEveryPage(t *testing.T) {
	sandbox := render(t, content(5, report.Verified, report.EnvTest))
	live := render(t, content(5, report.Verified, report.EnvLive))
	n := len(pdftest.Pages(t, sandbox))
	if n < 2 || n != len(pdftest.Pages(t, live)) {
		t.Fatalf("pages: sandbox %d, live %d", n, len(pdftest.Pages(t, live)))
	}
	for p := 1; p <= n; p++ {
		if got := tinted(pdftest.Page(t, sandbox, p, 30)); got < 500 {
			t.Errorf("sandbox page %d: %d watermark pixels", p, got)
		}
		if got := tinted(pdftest.Page(t, live, p, 30)); got > 20 {
			t.Errorf("live page %d: %d watermark pixels", p, got)
		}
	}
	for i, page := range pdftest.Pages(t, sandbox) {
		if !strings.Contains(page, "SANDBOX") {
			t.Errorf("sandbox page %d: footer does not say SANDBOX", i+1)
		}
	}
}

// tinted counts the pale pink pixels of the watermark (red at low
// opacity over white).
func tinted(img image.Image) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			r, g, bl = r>>8, g>>8, bl>>8
			if r > 235 && g > 195 && g < 238 && bl > 195 && bl < 238 && r-g > 12 {
				n++
			}
		}
	}
	return n
}

// TestSecondReaderOpensThePage renders page one to PNG with pdftoppm: an
// independent reader opens the file and draws a full A4 page.
func TestSecondReaderOpensThePage(t *testing.T) {
	img := pdftest.Page(t, render(t, content(1, report.Verified, report.EnvLive)), 1, 72)
	// A4 is 595.28 x 841.89 pt: poppler rounds either way.
	if b := img.Bounds(); b.Dx() < 595 || b.Dx() > 596 || b.Dy() < 841 || b.Dy() > 842 {
		t.Fatalf("page 1 is %dx%d px at 72 dpi, want A4 (595x842)", b.Dx(), b.Dy())
	}
	// Something is drawn: the header band is the accent colour.
	if r, g, b, _ := img.At(300, 2).RGBA(); r>>8 > 60 || b>>8 < 100 || g>>8 > 120 {
		t.Fatalf("header band colour at the top: %d %d %d", r>>8, g>>8, b>>8)
	}
}

// TestPhotosAreEmbedded: the thumbnails are drawn on the page (their
// green building shows in the rendered page), and a photo without one is
// printed as unavailable instead of failing the report. The fixture's
// photos have a sky of a blue nothing else on the page uses.
func TestPhotosAreEmbedded(t *testing.T) {
	c := content(1, report.Verified, report.EnvLive)
	missing := c.Outcome.Addresses[0].VerificationData.Photos[1].ID
	delete(c.Photos, missing)
	c.Photos["pho_broken"] = []byte("not a JPEG")
	c.Outcome.Addresses[0].VerificationData.Photos = append(c.Outcome.Addresses[0].VerificationData.Photos,
		report.Photo{ID: "pho_broken", URL: "https://api.example.com/broken", Tag: "gate"})
	b := render(t, c)
	text := pdftest.Text(t, b)
	if n := strings.Count(text, "Photo unavailable"); n != 2 {
		t.Errorf("%d photos shown as unavailable, want 2 (missing and unreadable)", n)
	}
	sky := pdftest.Pixels(t, b, 30, pdftest.Colour{R: [2]uint8{116, 154}, G: [2]uint8{171, 209}, B: [2]uint8{216, 254}})
	// Two photos of 87 x 65 mm at 30 dpi, 70 % sky: well over 2 x 2,000 px.
	if sky < 2000 {
		t.Fatalf("%d pixels of the photos' sky on the pages: the photos are not drawn", sky)
	}
}

// logoPNG is a w x h solid orange PNG.
func logoPNG(w, h int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = 245, 130, 10, 255
	}
	var b bytes.Buffer
	_ = png.Encode(&b, img)
	return b.Bytes()
}

// TestWhiteLabelReplacesOurBranding: an Enterprise organization's name,
// colour and logo are on every page instead of ours.
func TestWhiteLabelReplacesOurBranding(t *testing.T) {
	c := content(1, report.Verified, report.EnvLive)
	c.Brand = &report.Brand{DisplayName: "Zenith Microfinance", Accent: "#7A1FA2", Logo: logoPNG(200, 80)}
	c.OrgName = c.Brand.DisplayName
	b := render(t, c)
	for i, page := range pdftest.Pages(t, b) {
		if !strings.Contains(page, "Zenith Microfinance") || strings.Contains(page, "KYC Field Verification Report") {
			t.Errorf("page %d does not carry the organization's name instead of ours:\n%s", i+1, page)
		}
	}
	img := pdftest.Page(t, b, 1, 72)
	if r, g, bl, _ := img.At(300, 1).RGBA(); r>>8 != 0x7A || g>>8 != 0x1F || bl>>8 != 0xA2 {
		t.Errorf("header band is %d,%d,%d, want the organization's #7A1FA2", r>>8, g>>8, bl>>8)
	}
	orange := 0
	for y := range 60 {
		for x := range 200 {
			if r, g, bl, _ := img.At(x, y).RGBA(); r>>8 > 230 && g>>8 > 110 && g>>8 < 150 && bl>>8 < 40 {
				orange++
			}
		}
	}
	if orange < 100 {
		t.Errorf("%d logo pixels in the header: the logo is not drawn", orange)
	}
	if text := pdftest.Text(t, render(t, content(1, report.Verified, report.EnvLive))); !strings.Contains(text, "KYC Field Verification Report") {
		t.Error("without branding the report does not carry ours")
	}
}
