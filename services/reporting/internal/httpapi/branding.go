package httpapi

import (
	"context"
	"net/http"

	"github.com/kycfield/kyc/pkg/envelope"
	"github.com/kycfield/kyc/pkg/jsonbody"
	"github.com/kycfield/kyc/services/reporting/internal/report"
)

// maxBrandBody fits a logo at its limit, base64-encoded, and the rest.
const maxBrandBody = report.MaxLogoBytes*4/3 + 4<<10

type brandRequest struct {
	who report.Caller
	in  report.BrandInput
}

func decodeBrand(ctx context.Context, r *http.Request) (brandRequest, error) {
	req := brandRequest{who: caller(ctx)}
	return req, jsonbody.ReadInto(r, maxBrandBody, &req.in)
}

// Branding is the white-labelling as the API shows it (the logo itself is
// not echoed: it is in every report).
type Branding struct {
	DisplayName  string  `json:"displayName"`
	AccentColour *string `json:"accentColour"`
	HasLogo      bool    `json:"hasLogo"`
	UpdatedAt    *string `json:"updatedAt"`
}

func brandView(b report.Brand) Branding {
	v := Branding{DisplayName: b.DisplayName, HasLogo: len(b.Logo) > 0, UpdatedAt: envelope.Timestamp(b.UpdatedAt)}
	if b.Accent != "" {
		v.AccentColour = &b.Accent
	}
	return v
}
