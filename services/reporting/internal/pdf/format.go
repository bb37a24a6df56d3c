package pdf

import (
	"fmt"
	"strings"
	"time"

	"github.com/kycfield/kyc/services/reporting/internal/report"
)

// notGiven stands in for an empty field, so a reader sees it was empty
// rather than left out.
const notGiven = "—"

func or(v string) string {
	if strings.TrimSpace(v) == "" {
		return notGiven
	}
	return v
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func utc(t time.Time) string { return t.UTC().Format("02 Jan 2006 15:04 UTC") }

// when is a moment in Lagos time with UTC beside it: agents and lenders
// read local time, audits compare UTC.
func when(t *time.Time) string {
	if t == nil {
		return notGiven
	}
	return t.In(report.Lagos).Format("02 Jan 2006 15:04") + " Africa/Lagos (WAT) · " + t.UTC().Format("15:04 UTC")
}

// shortWhen is when on one short line, for photo captions.
func shortWhen(t *time.Time) string {
	if t == nil {
		return "capture time not recorded"
	}
	return t.In(report.Lagos).Format("02 Jan 2006 15:04") + " WAT · " + t.UTC().Format("15:04 UTC")
}

// submitted is the address as the lender sent it, on one line.
func submitted(a report.Address) string {
	street := strings.TrimSpace(deref(a.StreetNumber) + " " + a.StreetName)
	parts := []string{street, a.City}
	if lga := deref(a.LGA); lga != "" {
		parts = append(parts, lga+" LGA")
	}
	parts = append(parts, a.State, a.Country)
	var out []string
	for _, p := range parts {
		if strings.TrimSpace(p) != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, ", ")
}

// location is the map-free line: where the point lies and how far the
// completion was from the agent's check-in.
func location(a report.Address) string {
	parts := []string{"State: " + or(a.State), "LGA: " + or(deref(a.LGA))}
	if v := a.VerificationData; v != nil && v.DistanceFromCheckInMeters != nil {
		parts = append(parts, fmt.Sprintf("%.0f m from check-in", *v.DistanceFromCheckInMeters))
	} else {
		parts = append(parts, "distance from check-in not recorded")
	}
	return strings.Join(parts, " · ")
}

// meters is a distance as a person reads it: metres up to a kilometre,
// then kilometres with one decimal.
func meters(m float64) string {
	if m < 1000 {
		return fmt.Sprintf("%.0f m", m)
	}
	return fmt.Sprintf("%.1f km", m/1000)
}

// fix is a recorded position with its accuracy.
func fix(lat, lon float64, accuracy *float64) string {
	s := fmt.Sprintf("%.6f, %.6f", lat, lon)
	if accuracy != nil {
		s += fmt.Sprintf(" (GPS accuracy ±%.0f m)", *accuracy)
	}
	return s
}

// declaration is what the agent affirmed by submitting the visit.
func declaration(v *report.VerificationData) string {
	if v == nil || v.Agent == nil || v.VerifiedAt == nil {
		return notGiven
	}
	return fmt.Sprintf("%s (%s) submitted this visit on %s, declaring that they visited the address in person and that "+
		"the findings and photos above are their own.", v.Agent.Name, v.Agent.ID, when(v.VerifiedAt))
}

func agent(v *report.VerificationData) string {
	if v == nil || v.Agent == nil {
		return notGiven
	}
	return v.Agent.Name + " (" + v.Agent.ID + ")"
}

func resident(v *report.VerificationData) string {
	if v == nil || v.Resident == nil {
		return notGiven
	}
	r := v.Resident
	s := or(r.Name)
	if r.Relationship != "" {
		s += ", " + r.Relationship
	}
	if r.YearsAtAddress != nil {
		s += fmt.Sprintf(", %d years at the address", *r.YearsAtAddress)
	}
	return s
}

func neighbour(v *report.VerificationData) string {
	if v == nil || v.Neighbour == nil {
		return notGiven
	}
	s := "Did not confirm"
	if v.Neighbour.Confirmed {
		s = "Confirmed"
	}
	if v.Neighbour.Notes != "" {
		s += ": " + v.Neighbour.Notes
	}
	return s
}

func building(v *report.VerificationData) string {
	if v == nil || v.Building == nil {
		return notGiven
	}
	b := v.Building
	var parts []string
	if b.Type != "" {
		parts = append(parts, "Type: "+b.Type)
	}
	if b.Colour != "" {
		parts = append(parts, "Colour: "+b.Colour)
	}
	if b.GatePresent != nil {
		parts = append(parts, map[bool]string{true: "Gate: yes", false: "Gate: no"}[*b.GatePresent])
	}
	return or(strings.Join(parts, " · "))
}

// flags are the evidence flags, each with its severity and sentence
// where the producer explained it (older outcomes carry codes only).
func flags(v *report.VerificationData) []string {
	if v == nil || len(v.Flags) == 0 {
		return []string{"None"}
	}
	if len(v.FlagDetails) == 0 {
		return []string{strings.Join(v.Flags, ", ")}
	}
	out := make([]string, len(v.FlagDetails))
	for i, d := range v.FlagDetails {
		out[i] = fmt.Sprintf("%s (%s): %s", d.Code, d.Severity, d.Message)
	}
	return out
}

// expected is an address's expected location with the completion's
// distance from it.
func expected(a report.Address) string {
	e := a.ExpectedLocation
	if e == nil {
		return notGiven
	}
	words := map[string]string{"TOWN": "centre of the town", "LGA": "reference point of the LGA", "STATE": "reference point of the state"}[e.Precision]
	s := fmt.Sprintf("%.6f, %.6f (%s)", e.Latitude, e.Longitude, or(words))
	if v := a.VerificationData; v != nil && v.DistanceFromExpectedMeters != nil {
		s += " · " + meters(*v.DistanceFromExpectedMeters) + " from completion"
	}
	return s
}

func attempts(v *report.VerificationData) []string {
	if v == nil {
		return nil
	}
	out := make([]string, len(v.Attempts))
	for i, a := range v.Attempts {
		s := fmt.Sprintf("%d. %s: %s", i+1, when(a.At), a.Reason)
		if a.Notes != "" {
			s += ": " + a.Notes
		}
		out[i] = s + " (by " + or(a.By) + ")"
	}
	return out
}

func size(n *int64) string {
	switch {
	case n == nil:
		return notGiven
	case *n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(*n)/(1<<20))
	case *n >= 1<<10:
		return fmt.Sprintf("%.0f KB", float64(*n)/(1<<10))
	}
	return fmt.Sprintf("%d B", *n)
}

func statusColour(s string) rgb {
	switch s {
	case report.Verified:
		return green
	case report.Rejected:
		return red
	}
	return amber
}

// review is operations' decision on one line: what, who, when, and the
// reviewer's note.
func review(r report.Review) string {
	what := map[string]string{"APPROVE": "Approved", "REJECT": "Rejected", "REVISIT": "Sent back for a re-visit"}[r.Decision]
	if what == "" {
		what = r.Decision
	}
	s := what + " by " + r.ReviewedBy + ", " + when(r.ReviewedAt)
	if r.Note != "" {
		s += ". Note: " + r.Note
	}
	return s
}
