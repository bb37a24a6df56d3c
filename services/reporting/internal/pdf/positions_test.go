package pdf_test

import (
	"bytes"
	"testing"

	"github.com/digitorus/pdfsign/verify"

	"github.com/kycfield/kyc/pkg/pdftest"
	"github.com/kycfield/kyc/services/reporting/internal/pdf"
	"github.com/kycfield/kyc/services/reporting/internal/pdfsig"
	"github.com/kycfield/kyc/services/reporting/internal/report"
)

// checkInPixels counts, over every page rendered by pdftoppm, the pixels
// of the check-in marker's amber: nothing else in a VERIFIED report uses
// it, so they are there exactly when the position diagram is drawn.
func checkInPixels(t *testing.T, b []byte) int {
	t.Helper()
	return pdftest.Pixels(t, b, 50, pdftest.Colour{R: [2]uint8{166, 194}, G: [2]uint8{96, 124}, B: [2]uint8{0, 29}})
}

// TestPositionDiagramIsDrawn: a visit with a check-in and photo positions
// gets the diagram (seen in the rendered page, with its legend and scale
// bar in the text); one with only a completion point gets none.
func TestPositionDiagramIsDrawn(t *testing.T) {
	c := content(1, report.Verified, report.EnvLive)
	b := render(t, c)
	if n := checkInPixels(t, b); n < 4 {
		t.Errorf("no check-in marker drawn (%d amber pixels)", n)
	}
	text := pdftest.Text(t, b)
	for _, w := range []string{"Completion", "Check-in", "Photo n", "50 m"} {
		if !contains(text, w) {
			t.Errorf("the diagram lacks %q", w)
		}
	}
	v := c.Outcome.Addresses[0].VerificationData
	v.CheckIn = nil
	for i := range v.Photos {
		v.Photos[i].Latitude, v.Photos[i].Longitude = nil, nil
	}
	if n := checkInPixels(t, render(t, c)); n != 0 {
		t.Errorf("a visit with one recorded point still drew a diagram (%d amber pixels)", n)
	}
}

// TestRenderedReportIsSigned: with the platform's signer the report
// carries a valid certification signature, and its text is unchanged.
func TestRenderedReportIsSigned(t *testing.T) {
	sig, err := pdfsig.Ephemeral("KYC platform (test)")
	if err != nil {
		t.Fatal(err)
	}
	c := content(2, report.Verified, report.EnvLive)
	b, err := pdf.Renderer{Signer: sig}.Render(c)
	if err != nil {
		t.Fatal(err)
	}
	opts := verify.DefaultVerifyOptions()
	opts.AllowUntrustedRoots = true
	resp, err := verify.VerifyWithOptions(bytes.NewReader(b), int64(len(b)), opts)
	if err != nil || len(resp.Signers) != 1 || !resp.Signers[0].ValidSignature {
		t.Fatalf("signature: %+v %v", resp, err)
	}
	if !contains(pdftest.Text(t, b), "Verification code\tABCDEFGHIJKLMNOPQRSTUVWX") {
		t.Error("the signed report lost its text")
	}
}
