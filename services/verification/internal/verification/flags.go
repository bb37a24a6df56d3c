package verification

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// FlagDetail is one flag as a person reads it: its code, how serious it
// is, and a sentence with what was measured.
type FlagDetail struct {
	Code     string `json:"code"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
}

// Severities of a flag: info (worth a look, often innocent), warning
// (needs an explanation), critical (points at made-up evidence).
const (
	SeverityInfo     = "info"
	SeverityWarning  = "warning"
	SeverityCritical = "critical"
)

// FlagSeverity is each flag's severity; api/openapi.yaml documents the
// same table (EvidenceFlag).
var FlagSeverity = map[string]string{
	FlagCheckInFar:         SeverityWarning,
	FlagPhotoFar:           SeverityWarning,
	FlagPhotoTime:          SeverityWarning,
	FlagLowAccuracy:        SeverityInfo,
	FlagOutsideState:       SeverityCritical,
	FlagPhotoWithoutGPS:    SeverityInfo,
	FlagCheckInLowAccuracy: SeverityInfo,
	FlagPhotoReused:        SeverityCritical,
	FlagSuspectLocation:    SeverityCritical,
	FlagImpossibleTravel:   SeverityCritical,
	FlagShortVisit:         SeverityWarning,
	FlagFarFromExpected:    SeverityWarning,
}

// flagSet is the flags raised: each code once, in the order first
// raised, and every occurrence explained.
type flagSet struct {
	codes   []string
	details []FlagDetail
}

func (f *flagSet) add(code, format string, args ...any) {
	if !slices.Contains(f.codes, code) {
		f.codes = append(f.codes, code)
	}
	f.details = append(f.details, FlagDetail{Code: code, Severity: FlagSeverity[code], Message: fmt.Sprintf(format, args...)})
}

// addDetails adds flags already explained (the check-in's).
func (f *flagSet) addDetails(ds []FlagDetail) {
	for _, d := range ds {
		if !slices.Contains(f.codes, d.Code) {
			f.codes = append(f.codes, d.Code)
		}
		f.details = append(f.details, d)
	}
}

// meters writes a distance as people say it: 412 m, 17.2 km.
func meters(m float64) string {
	if m < 1000 {
		return fmt.Sprintf("%.0f m", m)
	}
	return fmt.Sprintf("%.1f km", m/1000)
}

// span writes a duration as people say it: 45 s, 1 min 30 s, 2 h 5 min.
func span(d time.Duration) string {
	d = d.Abs().Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%d s", int(d.Seconds()))
	case d < time.Hour:
		m, s := int(d.Minutes()), int(d.Seconds())%60
		if s == 0 {
			return fmt.Sprintf("%d min", m)
		}
		return fmt.Sprintf("%d min %d s", m, s)
	default:
		h, m := int(d.Hours()), int(d.Minutes())%60
		if m == 0 {
			return fmt.Sprintf("%d h", h)
		}
		return fmt.Sprintf("%d h %d min", h, m)
	}
}

// photoName is how a flag names a photo: its place among the address's
// photos as the lender lists them, and its tag.
func photoName(n int, tag string) string {
	return fmt.Sprintf("Photo %d (%s)", n, strings.ReplaceAll(tag, "_", " "))
}

// clock is a time in Lagos as an agent's phone shows it.
func clock(t time.Time) string { return t.In(Lagos).Format("2006-01-02 15:04 WAT") }

func round1(v float64) float64 { return math.Round(v*10) / 10 }
