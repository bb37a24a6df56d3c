package pdf_test

import (
	"image"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kycfield/kyc/pkg/pdftest"
	"github.com/kycfield/kyc/services/reporting/internal/pdf"
	"github.com/kycfield/kyc/services/reporting/internal/report"
)

// TestCommonFaceRendersTheSame: a report set in the cut faces has the
// text layer and the look of the same report set in the whole font files,
// page by page, Yoruba, Igbo and Hausa diacritics included.
func TestCommonFaceRendersTheSame(t *testing.T) {
	hausa := content(1, report.Rejected, report.EnvLive)
	hausa.Customer.FirstName, hausa.Customer.LastName = "Ɗanjuma", "Ƙwairanga ɓ ƴ ₦"
	for name, c := range map[string]report.Content{
		"five addresses, sandbox": content(5, report.Verified, report.EnvTest),
		"one address, rejected":   hausa,
	} {
		t.Run(name, func(t *testing.T) {
			if !pdf.SetInCut(c) {
				t.Fatal("the fixture is not set in the cut faces")
			}
			cut, whole := render(t, c), renderWith(t, pdf.WholeFaces(pdf.Renderer{}), c)
			if a, b := pdftest.Text(t, cut), pdftest.Text(t, whole); a != b {
				t.Fatalf("text differs:\n%s\n---- whole faces:\n%s", a, b)
			}
			n := len(pdftest.Pages(t, whole))
			if len(pdftest.Pages(t, cut)) != n {
				t.Fatalf("page count differs")
			}
			for p := 1; p <= n; p++ {
				if !samePixels(pdftest.Page(t, cut, p, 60), pdftest.Page(t, whole, p, 60)) {
					t.Errorf("page %d looks different", p)
				}
			}
		})
	}
}

// TestTextOutsideTheCutKeepsItsGlyphs: a name in a script the cut does not
// hold (Greek, Cyrillic) sets the report in the whole faces, and the name
// comes out of the text layer as it went in.
func TestTextOutsideTheCutKeepsItsGlyphs(t *testing.T) {
	c := content(1, report.Verified, report.EnvLive)
	c.Customer.FirstName, c.Customer.LastName = "Αλέξανδρος", "Пётр"
	if pdf.SetInCut(c) {
		t.Fatal("Greek and Cyrillic are not in the cut")
	}
	c2 := content(1, report.Verified, report.EnvLive)
	c2.Outcome.Addresses[0].VerificationData.AgentNotes = "Гость" // deep in the content
	if pdf.SetInCut(c2) {
		t.Fatal("a note's Cyrillic was not seen")
	}
	text := pdftest.Text(t, render(t, c))
	if want := "Full name\tΑλέξανδρος Пётр"; !contains(text, want) {
		t.Errorf("text lacks %q:\n%s", want, text)
	}
}

// TestLayoutTextIsInTheCut: every character in the package's own source
// (labels, separators, the diagram's arrow) is in the cut faces, so a
// label added with a character outside them fails here instead of being
// printed as a missing glyph.
func TestLayoutTextIsInTheCut(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range string(b) {
			if r != '\n' && !pdf.Common(r) {
				t.Errorf("%s: %q (U+%04X) is not in the cut faces: add its block to commonRanges", f, r, r)
			}
		}
	}
}

func renderWith(t *testing.T, r pdf.Renderer, c report.Content) []byte {
	t.Helper()
	b, err := r.Render(c)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func samePixels(a, b image.Image) bool {
	if a.Bounds() != b.Bounds() {
		return false
	}
	for y := a.Bounds().Min.Y; y < a.Bounds().Max.Y; y++ {
		for x := a.Bounds().Min.X; x < a.Bounds().Max.X; x++ {
			r1, g1, b1, _ := a.At(x, y).RGBA()
			r2, g2, b2, _ := b.At(x, y).RGBA()
			if r1 != r2 || g1 != g2 || b1 != b2 {
				return false
			}
		}
	}
	return true
}
