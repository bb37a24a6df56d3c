package pdf

import (
	"bytes"
	"fmt"

	"codeberg.org/go-pdf/fpdf"

	"github.com/kycfield/kyc/services/reporting/internal/report"
)

// The photo grid: two photos a row, each 87 mm wide (an auditor must be
// able to read a house number), with its tag, capture time, position and
// distance from the completion point underneath.
const (
	perRow     = 2
	photoGap   = 6.0
	photoWidth = (bodyWidth - (perRow-1)*photoGap) / perRow
	captionH   = 15.0
)

// photos shows an address's photographic evidence.
func (d *doc) photos(v *report.VerificationData) {
	if len(v.Photos) > 0 && d.f.GetY()+lineHeight+d.photoHeight(v.Photos[0])+captionH > pageHeight-margin-12 {
		d.f.AddPage() // keep the label with the first row of photos
	}
	d.row("Photos", fmt.Sprintf("%d taken", len(v.Photos)))
	if len(v.Photos) == 0 {
		return
	}
	d.f.Ln(1)
	for i := 0; i < len(v.Photos); i += perRow {
		d.photoRow(v.Photos[i:min(i+perRow, len(v.Photos))], i)
	}
}

// photoRow draws up to perRow photos side by side, starting a new page
// when the row would not fit.
func (d *doc) photoRow(ps []report.Photo, first int) {
	f := d.f
	h := 0.0
	for _, p := range ps {
		h = max(h, d.photoHeight(p))
	}
	if f.GetY()+h+captionH > pageHeight-margin-12 {
		f.AddPage()
	}
	y := f.GetY()
	for i, p := range ps {
		x := margin + float64(i)*(photoWidth+photoGap)
		d.photo(p, first+i+1, x, y, h)
	}
	f.SetXY(margin, y+h+captionH+2)
}

// photoHeight is the height a photo takes at photoWidth (4:3 for one
// that is unavailable).
func (d *doc) photoHeight(p report.Photo) float64 {
	info := d.image(p)
	if info == nil {
		return photoWidth * 3 / 4
	}
	return photoWidth * info.Height() / info.Width()
}

// image registers a photo's thumbnail once and returns it, or nil.
func (d *doc) image(p report.Photo) *fpdf.ImageInfoType {
	b, ok := d.c.Photos[p.ID]
	if !ok || d.broken[p.ID] {
		return nil
	}
	if info := d.f.GetImageInfo(p.ID); info != nil {
		return info
	}
	info := d.f.RegisterImageOptionsReader(p.ID, fpdf.ImageOptions{ImageType: "JPG"}, bytes.NewReader(b))
	if d.f.Err() {
		// A thumbnail fpdf cannot read is shown as unavailable, not a
		// failed report.
		d.f.ClearError()
		d.broken[p.ID] = true
		return nil
	}
	return info
}

func (d *doc) photo(p report.Photo, n int, x, y, h float64) {
	f := d.f
	if info := d.image(p); info != nil {
		f.ImageOptions(p.ID, x, y, photoWidth, photoWidth*info.Height()/info.Width(), false, fpdf.ImageOptions{ImageType: "JPG"}, 0, "")
	} else {
		f.SetFillColor(240, 240, 240)
		f.Rect(x, y, photoWidth, photoWidth*3/4, "F")
		d.font("", 8, muted)
		f.SetXY(x, y+photoWidth*3/8-2)
		f.CellFormat(photoWidth, 4, "Photo unavailable", "", 0, "C", false, 0, "")
	}
	d.font("B", 8, ink)
	f.SetXY(x, y+h+0.5)
	f.CellFormat(photoWidth, 3.6, fmt.Sprintf("%d. %s", n, p.Tag), "", 2, "L", false, 0, "")
	d.font("", 7.5, muted)
	for _, line := range []string{"Taken " + shortWhen(p.CapturedAt), photoPosition(p)} {
		f.CellFormat(photoWidth, 3.4, line, "", 2, "L", false, 0, "")
	}
}

// photoPosition is where a photo was taken and how far from the
// completion point, on one line.
func photoPosition(p report.Photo) string {
	if p.Latitude == nil || p.Longitude == nil {
		return "Position not recorded"
	}
	s := fmt.Sprintf("GPS %.6f, %.6f", *p.Latitude, *p.Longitude)
	if p.DistanceFromCompletionMeters != nil {
		s += " · " + meters(*p.DistanceFromCompletionMeters) + " from completion"
	}
	return s
}
