package pdf

import (
	"fmt"

	"github.com/kycfield/kyc/services/reporting/internal/report"
)

// badge is a filled rounded label, white on the status's colour.
func (d *doc) badge(text string, size float64, x, y float64) {
	f := d.f
	d.font("B", size, rgb{255, 255, 255})
	w, h := f.GetStringWidth(text)+6, size*0.55
	col := statusColour(text)
	f.SetFillColor(col.r, col.g, col.b)
	f.RoundedRect(x, y, w, h, 1.5, "1234", "F")
	f.SetXY(x, y)
	f.CellFormat(w, h, text, "", 0, "C", false, 0, "")
}

func (d *doc) title() {
	f, c := d.f, d.c
	name := c.Customer.FirstName + " " + c.Customer.LastName
	if c.Customer.FirstName == "" {
		name = c.Outcome.CustomerName
	}
	d.font("B", 18, ink)
	f.CellFormat(bodyWidth, 9, name, "", 1, "L", false, 0, "")
	d.font("", 9, muted)
	f.CellFormat(bodyWidth, 5, "Overall result of the field verification", "", 1, "L", false, 0, "")
	d.badge(c.Outcome.OverallStatus, 16, margin, f.GetY()+1)
	f.Ln(12)
	d.row("Prepared for", c.OrgName)
	d.row("Verification completed", when(c.Outcome.VerificationDate))
	d.row("Report generated", when(&c.Report.GeneratedAt))
	if c.Sandbox {
		d.row("Environment", "SANDBOX: simulated verification with mock evidence")
	}
}

// heading starts a section.
func (d *doc) heading(text string) {
	f := d.f
	f.Ln(3)
	if f.GetY() > pageHeight-60 {
		f.AddPage()
	}
	d.font("B", 12.5, d.accent)
	f.CellFormat(bodyWidth, 8, text, "", 1, "L", false, 0, "")
	f.SetDrawColor(d.accent.r, d.accent.g, d.accent.b)
	f.Line(margin, f.GetY(), pageWidth-margin, f.GetY())
	f.Ln(2)
}

// row is a label and its value, the value wrapping within its column.
func (d *doc) row(label, value string) {
	f := d.f
	if f.GetY() > pageHeight-margin-18 {
		f.AddPage()
	}
	y := f.GetY()
	d.font("B", 9, muted)
	f.SetXY(margin, y)
	f.MultiCell(labelWidth, lineHeight, label, "", "L", false)
	after := f.GetY()
	d.font("", 9.5, ink)
	f.SetXY(margin+labelWidth, y)
	f.MultiCell(bodyWidth-labelWidth, lineHeight, or(value), "", "L", false)
	if f.GetY() < after {
		f.SetY(after)
	}
}

// link is a row whose value is a URL on one line beside its label, set
// smaller when it would not fit: wrapped, it could not be typed.
func (d *doc) link(label, url string) {
	f := d.f
	y := f.GetY()
	d.font("B", 9, muted)
	f.SetXY(margin, y)
	f.CellFormat(labelWidth, lineHeight, label, "", 0, "L", false, 0, "")
	size := 9.5
	for d.font("", size, ink); size > 6 && f.GetStringWidth(url) > bodyWidth-labelWidth; d.font("", size, ink) {
		size -= 0.5
	}
	f.CellFormat(bodyWidth-labelWidth, lineHeight, url, "", 1, "L", false, 0, url)
}

func (d *doc) customer() {
	c := d.c.Customer
	d.heading("Customer")
	d.row("Full name", c.FirstName+" "+c.LastName)
	d.row("Customer ID", d.c.Report.CustomerID)
	d.row("Phone", c.Phone)
	d.row("Email", c.Email)
	d.row("Occupation", c.Occupation)
	d.row("BVN", report.MaskID(c.BVN))
	d.row("NIN", report.MaskID(c.NIN))
	d.row("Passport number", c.PassportNumber)
	d.row("Loan ID", or(c.LoanID))
	d.row("Loan type", or(c.LoanType))
}

func (d *doc) addresses() {
	as := d.c.Outcome.Addresses
	for i, a := range as {
		title := fmt.Sprintf("Address %d of %d", i+1, len(as))
		if l := deref(a.Label); l != "" {
			title += ": " + l
		}
		d.heading(title)
		d.address(a)
	}
}

func (d *doc) address(a report.Address) {
	f, v := d.f, a.VerificationData
	d.font("B", 9, muted)
	f.CellFormat(labelWidth, 7, "Status", "", 0, "L", false, 0, "")
	d.badge(a.Status, 10, margin+labelWidth, f.GetY()+0.8)
	f.SetXY(margin, f.GetY()+8)
	d.row("Address as submitted", submitted(a))
	d.row("Landmark", deref(a.Landmark))
	d.row("Instructions to agent", deref(a.Notes))
	if v == nil {
		d.row("Verification data", "No visit recorded")
		return
	}
	d.row("Verified address", v.VerifiedAddress)
	d.row("Location", location(a))
	d.row("Visited", when(v.VerifiedAt))
	d.row("Agent", agent(v))
	d.row("Agent notes", v.AgentNotes)
	d.row("Resident interview", resident(v))
	d.row("Neighbour", neighbour(v))
	d.row("Building", building(v))
	for i, line := range flags(v) {
		d.row(map[bool]string{true: "Evidence flags"}[i == 0], line)
	}
	d.row("Attempts", fmt.Sprintf("%d without access", len(v.Attempts)))
	for _, line := range attempts(v) {
		d.row("", line)
	}
	if v.Reason != "" || a.Status == report.Rejected {
		d.row("Rejection reason", v.Reason)
		d.row("Diagnostics", v.Diagnostics)
	}
	if v.Review != nil {
		d.row("Quality review", review(*v.Review))
	}
	d.positions(a, v)
	d.photos(v)
	d.row("Agent's declaration", declaration(v))
}

func (d *doc) documents() {
	docs := d.c.Outcome.Documents
	d.heading(fmt.Sprintf("Documents (%d)", len(docs)))
	if len(docs) == 0 {
		d.row("Documents", "None supplied")
		return
	}
	for i, x := range docs {
		verified := "not verified"
		if x.Verified {
			verified = "verified"
		}
		d.row(fmt.Sprintf("%d. %s", i+1, x.DocumentType), fmt.Sprintf("%s · %s · %s · uploaded %s · %s",
			or(deref(x.FileName)), or(deref(x.FileType)), size(x.FileSize), when(x.UploadedAt), verified))
	}
}

// authenticity tells the reader how to check the report is genuine.
func (d *doc) authenticity() {
	c := d.c
	d.heading("Authenticity")
	d.row("Verification code", c.Report.Code)
	d.link("Check at", c.VerifyURL)
	d.row("How to check", "Anyone holding this code can open the address above (no account needed). It answers the "+
		"customer ID, the result, the generation time and the SHA-256 of the genuine PDF: compare it with this file's "+
		"(sha256sum on Linux, shasum -a 256 on macOS, CertUtil -hashfile on Windows).")
}
