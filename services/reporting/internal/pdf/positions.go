package pdf

import (
	"fmt"
	"math"
	"slices"

	"github.com/kycfield/kyc/services/reporting/internal/report"
)

// A position diagram: every recorded point of a visit drawn to scale
// around the completion point, with a scale bar. No map tiles: the report
// must render offline, and what an auditor needs is how far apart the
// points are, not the streets.
const (
	diagramHeight = 62.0
	diagramPad    = 8.0
	// minSpan keeps points recorded within a few metres of each other
	// from being spread across the whole box.
	minSpan = 60.0 // metres, across the box's shorter side
)

// point is a recorded position to draw, in metres east and north of the
// completion point.
type point struct {
	label string // drawn beside the marker (photo number); "" for none
	kind  pointKind
	x, y  float64
}

type pointKind int

const (
	completion pointKind = iota
	checkIn
	photoPoint
	expectedPoint
)

// positions prints where the visit happened: the check-in and completion
// fixes with their distances, then the diagram.
func (d *doc) positions(a report.Address, v *report.VerificationData) {
	d.row("Expected location", expected(a))
	if v.VerifiedLatitude == nil || v.VerifiedLongitude == nil {
		d.row("Completed at", notGiven)
		return
	}
	d.row("Completed at", fix(*v.VerifiedLatitude, *v.VerifiedLongitude, v.GPSAccuracyMeters)+" · "+when(v.VerifiedAt))
	if c := v.CheckIn; c != nil {
		line := fix(c.Latitude, c.Longitude, c.AccuracyMeters) + " · " + when(c.At)
		if v.DistanceFromCheckInMeters != nil {
			line += " · " + meters(*v.DistanceFromCheckInMeters) + " from completion"
		}
		d.row("Checked in at", line)
	}
	pts := points(a, v)
	if len(pts) > 1 {
		d.diagram(pts)
	}
}

// points are v's recorded positions relative to its completion point
// (an equirectangular projection: exact enough over a few kilometres).
func points(a report.Address, v *report.VerificationData) []point {
	lat0, lon0 := *v.VerifiedLatitude, *v.VerifiedLongitude
	at := func(lat, lon float64) (float64, float64) {
		return (lon - lon0) * 111_320 * math.Cos(lat0*math.Pi/180), (lat - lat0) * 110_574
	}
	pts := []point{{kind: completion}}
	if c := v.CheckIn; c != nil {
		x, y := at(c.Latitude, c.Longitude)
		pts = append(pts, point{kind: checkIn, x: x, y: y})
	}
	for i, p := range v.Photos {
		if p.Latitude != nil && p.Longitude != nil {
			x, y := at(*p.Latitude, *p.Longitude)
			pts = append(pts, point{label: fmt.Sprint(i + 1), kind: photoPoint, x: x, y: y})
		}
	}
	if e := a.ExpectedLocation; e != nil {
		x, y := at(e.Latitude, e.Longitude)
		pts = append(pts, point{kind: expectedPoint, x: x, y: y})
	}
	return pts
}

// diagram draws pts in a box across the page, north up, with a legend
// and a scale bar.
func (d *doc) diagram(pts []point) {
	f := d.f
	if f.GetY()+diagramHeight+12 > pageHeight-margin-12 {
		f.AddPage()
	}
	x0, y0 := margin, f.GetY()+1
	f.SetDrawColor(rule.r, rule.g, rule.b)
	f.SetFillColor(248, 249, 251)
	f.Rect(x0, y0, bodyWidth, diagramHeight, "FD")
	span := minSpan
	for _, p := range pts {
		span = max(span, 2*math.Abs(p.x)*(diagramHeight-2*diagramPad)/(bodyWidth-2*diagramPad), 2*math.Abs(p.y))
	}
	scale := (diagramHeight - 2*diagramPad) / span // mm per metre
	cx, cy := x0+bodyWidth/2, y0+diagramHeight/2
	for i := len(pts) - 1; i >= 0; i-- { // completion last, on top
		p := pts[i]
		d.marker(p.kind, cx+p.x*scale, cy-p.y*scale, p.label)
	}
	d.scaleBar(x0+4, y0+diagramHeight-4, scale)
	d.font("", 7, muted)
	f.SetXY(x0+bodyWidth-20, y0+2)
	f.CellFormat(18, 3, "N ↑", "", 0, "R", false, 0, "")
	f.SetXY(margin, y0+diagramHeight+1)
	d.legend(pts)
}

// marker draws one point: the completion as a filled dot in the accent,
// the check-in as an amber square, photos as small numbered rings.
func (d *doc) marker(k pointKind, x, y float64, label string) {
	f := d.f
	switch k {
	case completion:
		f.SetFillColor(d.accent.r, d.accent.g, d.accent.b)
		f.Circle(x, y, 1.8, "F")
	case checkIn:
		f.SetFillColor(amber.r, amber.g, amber.b)
		f.Rect(x-1.5, y-1.5, 3, 3, "F")
	case expectedPoint:
		f.SetDrawColor(green.r, green.g, green.b)
		f.SetLineWidth(0.5)
		f.Circle(x, y, 2.2, "D")
		f.Line(x-3, y, x+3, y)
		f.Line(x, y-3, x, y+3)
		f.SetLineWidth(0.2)
	case photoPoint:
		f.SetDrawColor(ink.r, ink.g, ink.b)
		f.SetLineWidth(0.4)
		f.Circle(x, y, 1.2, "D")
		f.SetLineWidth(0.2)
		d.font("", 6.5, ink)
		f.Text(x+1.8, y-1.2, label)
	}
}

// scaleBar draws a bar of a round length (1, 2 or 5 times a power of
// ten metres) no longer than 40 mm, with its length written above.
func (d *doc) scaleBar(x, y, scale float64) {
	f := d.f
	length := 1.0
	for _, m := range []float64{1, 2, 5} {
		for p := 1.0; p <= 1e6; p *= 10 {
			if m*p*scale <= 40 && m*p > length {
				length = m * p
			}
		}
	}
	w := length * scale
	f.SetDrawColor(ink.r, ink.g, ink.b)
	f.SetLineWidth(0.5)
	f.Line(x, y, x+w, y)
	f.Line(x, y-1, x, y+0.5)
	f.Line(x+w, y-1, x+w, y+0.5)
	f.SetLineWidth(0.2)
	d.font("", 7, ink)
	f.Text(x, y-1.8, meters(length))
}

// legend names the markers drawn, under the diagram.
func (d *doc) legend(pts []point) {
	f := d.f
	y := f.GetY() + 2.5
	x := margin
	for _, k := range []pointKind{expectedPoint, completion, checkIn, photoPoint} {
		if !slices.ContainsFunc(pts, func(p point) bool { return p.kind == k }) {
			continue
		}
		d.marker(k, x+2, y, map[pointKind]string{photoPoint: "n"}[k])
		d.font("", 7.5, muted)
		name := map[pointKind]string{expectedPoint: "Expected location", completion: "Completion", checkIn: "Check-in", photoPoint: "Photo n"}[k]
		f.Text(x+6, y+1, name)
		x += 6 + f.GetStringWidth(name) + 8
	}
	f.SetXY(margin, y+4)
}
