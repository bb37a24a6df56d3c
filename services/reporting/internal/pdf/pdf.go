// Package pdf renders a report.Content as an A4 PDF with go-pdf/fpdf (its
// maintained home, codeberg.org/go-pdf/fpdf; built from our patched copy
// in third_party/fpdf, whose README says why). Text is set in DejaVu Sans,
// embedded from this package (fonts/, with its licence) through
// AddUTF8FontFromBytes: only the glyphs used are written to the file, and
// Yoruba and Igbo names keep their diacritics in the text layer. fonts.go
// says why each face is also kept cut to the common scripts.
package pdf

import (
	"bytes"
	"fmt"
	"time"

	"codeberg.org/go-pdf/fpdf"

	"github.com/kycfield/kyc/services/reporting/internal/report"
)

// Page geometry in millimetres.
const (
	margin     = 15.0
	pageWidth  = 210.0
	pageHeight = 297.0
	bodyWidth  = pageWidth - 2*margin
	labelWidth = 48.0
	lineHeight = 5.0
)

// rgb is a colour.
type rgb struct{ r, g, b int }

// Colours: the accent is our brand's (white-labelling replaces it).
var (
	ourAccent = rgb{22, 78, 140}
	ink       = rgb{30, 30, 30}
	muted     = rgb{110, 110, 110}
	green     = rgb{22, 128, 61}
	red       = rgb{185, 28, 28}
	amber     = rgb{180, 110, 10}
	rule      = rgb{215, 215, 215}
	stampInk  = rgb{200, 40, 40}
)

// Renderer implements report.Renderer. With a Signer, every report is
// signed as it is rendered, before its SHA-256 is taken.
type Renderer struct {
	Signer Signer
	// wholeFaces sets every report in the whole font files rather than
	// their common cut (fonts.go); tests compare the two.
	wholeFaces bool
}

// Signer applies the platform's PDF signature (pdfsig.Signer).
type Signer interface {
	Sign(doc []byte, at time.Time, signer, reason string) ([]byte, error)
}

// Render draws the report; the same content always gives a report with
// the same text (the PDF's own creation date is the report's).
func (r Renderer) Render(c report.Content) ([]byte, error) {
	d := newDoc(c, r.wholeFaces)
	d.title()
	d.customer()
	d.addresses()
	d.documents()
	d.authenticity()
	if err := d.f.Error(); err != nil {
		return nil, fmt.Errorf("pdf: %w", err)
	}
	var buf bytes.Buffer
	if err := d.f.Output(&buf); err != nil {
		return nil, fmt.Errorf("pdf: %w", err)
	}
	if r.Signer == nil {
		return buf.Bytes(), nil
	}
	return r.Signer.Sign(buf.Bytes(), c.Report.GeneratedAt, "KYC field verification platform",
		fmt.Sprintf("Field verification report %s (version %d) issued to %s", c.Report.ID, c.Report.Version, c.OrgName))
}

// doc is one report being drawn.
type doc struct {
	f *fpdf.Fpdf
	c report.Content
	// accent is ours, or the organization's when it white-labels.
	accent rgb
	// broken are thumbnails fpdf could not read, shown as unavailable.
	broken map[string]bool
}

func newDoc(c report.Content, wholeFaces bool) *doc {
	f := fpdf.New("P", "mm", "A4", "")
	regular, bold := faces(c, wholeFaces)
	f.AddUTF8FontFromBytes("dejavu", "", regular)
	f.AddUTF8FontFromBytes("dejavu", "B", bold)
	f.SetMargins(margin, margin+12, margin)
	f.SetAutoPageBreak(true, margin+10)
	f.AliasNbPages("{nb}")
	f.SetCreationDate(c.Report.GeneratedAt)
	f.SetModificationDate(c.Report.GeneratedAt)
	f.SetTitle("KYC report "+c.Report.ID, true)
	f.SetAuthor(c.OrgName, true)
	f.SetCreator("KYC field verification platform", true)
	d := &doc{f: f, c: c, broken: map[string]bool{}, accent: accentOf(c.Brand)}
	if c.Brand != nil {
		f.SetCreator(c.Brand.DisplayName, true)
	}
	f.SetHeaderFunc(d.header)
	f.SetFooterFunc(d.footer)
	f.AddPage()
	return d
}

func (d *doc) font(style string, size float64, col rgb) {
	d.f.SetFont("dejavu", style, size)
	d.f.SetTextColor(col.r, col.g, col.b)
}

// header draws the brand band (ours, or the organization's logo, name
// and colour) and, for sandbox reports, the watermark: the header runs
// first on every page, so the mark lies under the text.
func (d *doc) header() {
	f := d.f
	if d.c.Sandbox {
		d.watermark()
	}
	f.SetFillColor(d.accent.r, d.accent.g, d.accent.b)
	f.Rect(0, 0, pageWidth, 4, "F")
	f.SetXY(margin, 8)
	left, right := "KYC Field Verification Report", d.c.OrgName
	if b := d.c.Brand; b != nil {
		left, right = b.DisplayName, "KYC verification report"
		if d.logo() {
			f.ImageOptions("logo", margin, 6.5, 0, 8, false, fpdf.ImageOptions{ImageType: "PNG"}, 0, "")
			f.SetX(f.GetX() + 2)
		}
	}
	d.font("B", 11, d.accent)
	f.CellFormat(bodyWidth/2, 6, left, "", 0, "L", false, 0, "")
	d.font("", 9, muted)
	f.SetX(margin + bodyWidth/2)
	f.CellFormat(bodyWidth/2, 6, right, "", 1, "R", false, 0, "")
	f.SetDrawColor(rule.r, rule.g, rule.b)
	f.Line(margin, 16, pageWidth-margin, 16)
	f.SetXY(margin, margin+12)
}

// logo registers the organization's logo once; false when it has none
// or fpdf cannot read it (the name alone is shown then).
func (d *doc) logo() bool {
	b := d.c.Brand
	if b == nil || len(b.Logo) == 0 || d.broken["logo"] {
		return false
	}
	if d.f.GetImageInfo("logo") != nil {
		return true
	}
	d.f.RegisterImageOptionsReader("logo", fpdf.ImageOptions{ImageType: "PNG"}, bytes.NewReader(b.Logo))
	if d.f.Err() {
		d.f.ClearError()
		d.broken["logo"] = true
		return false
	}
	return true
}

// accentOf is the organization's colour when it set one, else ours.
func accentOf(b *report.Brand) rgb {
	if b == nil || len(b.Accent) != 7 {
		return ourAccent
	}
	var c rgb
	if _, err := fmt.Sscanf(b.Accent, "#%02x%02x%02x", &c.r, &c.g, &c.b); err != nil {
		return ourAccent
	}
	return c
}

// watermark is a large, faint, diagonal SANDBOX across the page.
func (d *doc) watermark() {
	f := d.f
	f.TransformBegin()
	f.SetAlpha(0.12, "Normal")
	f.TransformRotate(45, pageWidth/2, pageHeight/2)
	d.font("B", 90, stampInk)
	w := f.GetStringWidth("SANDBOX")
	f.Text(pageWidth/2-w/2, pageHeight/2+12, "SANDBOX")
	f.SetAlpha(1, "Normal")
	f.TransformEnd()
}

// footer carries what identifies the page: report id, generation time,
// page number, and the environment for sandbox reports.
func (d *doc) footer() {
	f := d.f
	f.SetY(-margin - 4)
	f.SetDrawColor(rule.r, rule.g, rule.b)
	f.Line(margin, f.GetY()-1, pageWidth-margin, f.GetY()-1)
	d.font("", 7.5, muted)
	left := fmt.Sprintf("Report %s · version %d · generated %s", d.c.Report.ID, d.c.Report.Version, utc(d.c.Report.GeneratedAt))
	if d.c.Sandbox {
		left += " · SANDBOX"
	}
	f.CellFormat(bodyWidth*0.85, 5, left, "", 0, "L", false, 0, "")
	f.CellFormat(bodyWidth*0.15, 5, fmt.Sprintf("Page %d of {nb}", f.PageNo()), "", 0, "R", false, 0, "")
}
