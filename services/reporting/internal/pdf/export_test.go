package pdf

import (
	"reflect"

	"github.com/kycfield/kyc/services/reporting/internal/report"
)

// WholeFaces is r setting every report in the whole font files, as
// before they were cut (fonts.go).
func WholeFaces(r Renderer) Renderer {
	r.wholeFaces = true
	return r
}

// SetInCut reports whether c is set in the cut faces.
func SetInCut(c report.Content) bool { return allCommon(reflect.ValueOf(c)) }

// Common reports whether r is in the cut faces.
var Common = common
