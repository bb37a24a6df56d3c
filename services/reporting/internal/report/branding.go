package report

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"image"
	_ "image/jpeg" // logos may be JPEGs
	"image/png"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/optional"
)

// PlanEnterprise is the plan whose organizations may white-label reports.
const PlanEnterprise = "enterprise"

// CodePlanUpgradeRequired refuses white-labelling below Enterprise (the
// code the gateway and auth-billing use for plan limits).
const CodePlanUpgradeRequired = "PLAN_UPGRADE_REQUIRED"

// Logo limits: small enough to sit in every report, large enough for a
// crisp print at the 12 mm it is drawn.
const (
	MaxLogoBytes  = 256 << 10
	MaxLogoPixels = 2000
	maxNameRunes  = 80
)

// Brand is what an Enterprise organization's reports show instead of
// ours: its name, its colour (hex "#RRGGBB", "" for ours) and its logo
// (a PNG, nil for none).
type Brand struct {
	DisplayName string
	Accent      string
	Logo        []byte
	UpdatedAt   time.Time
}

// BrandInput is the body of PUT /api/v1/reports/branding.
type BrandInput struct {
	DisplayName  string  `json:"displayName" required:""`
	AccentColour *string `json:"accentColour"`
	// Logo is a PNG or JPEG, base64-encoded; absent keeps the logo already
	// saved, null removes it.
	Logo optional.Field[string] `json:"logo"`
}

var hexColour = regexp.MustCompile(`^#[0-9A-Fa-f]{6}$`)

// CheckBrand validates in, reporting every problem at once, and turns the
// logo into a plain PNG (fpdf reads no interlaced PNGs, and re-encoding
// drops whatever metadata the file carried).
func CheckBrand(in BrandInput) (Brand, error) {
	var c apperr.Checker
	b := Brand{DisplayName: strings.TrimSpace(in.DisplayName)}
	if n := utf8.RuneCountInString(b.DisplayName); n < 2 || n > maxNameRunes {
		c.Fail("displayName", "must be 2 to %d characters", maxNameRunes)
	}
	if in.AccentColour != nil {
		if b.Accent = *in.AccentColour; !hexColour.MatchString(b.Accent) {
			c.Fail("accentColour", "must be a colour as #RRGGBB")
		}
	}
	if in.Logo.Has() {
		logo, err := checkLogo(in.Logo.V)
		if err != nil {
			c.Fail("logo", "%s", err.Error())
		}
		b.Logo = logo
	}
	return b, c.Err()
}

func checkLogo(s string) ([]byte, error) {
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("must be a base64-encoded PNG or JPEG")
	}
	if len(raw) > MaxLogoBytes {
		return nil, fmt.Errorf("must be at most %d KiB", MaxLogoBytes>>10)
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(raw))
	if err != nil || (format != "png" && format != "jpeg") {
		return nil, fmt.Errorf("must be a PNG or JPEG image")
	}
	if cfg.Width > MaxLogoPixels || cfg.Height > MaxLogoPixels || cfg.Width < 1 || cfg.Height < 1 {
		return nil, fmt.Errorf("must be at most %d x %d pixels", MaxLogoPixels, MaxLogoPixels)
	}
	img, _, err := image.Decode(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("could not be read as an image")
	}
	var out bytes.Buffer
	if err := png.Encode(&out, img); err != nil {
		return nil, fmt.Errorf("could not be read as an image")
	}
	return out.Bytes(), nil
}

// ErrBrandNotSet answers the read of branding never set.
var ErrBrandNotSet = apperr.NotFound("Branding")

// SetBrand stores the caller's white-labelling; below Enterprise it is
// refused. Reports rendered afterwards show it.
func (s *Service) SetBrand(ctx context.Context, who Caller, in BrandInput) (Brand, error) {
	if who.Plan != PlanEnterprise {
		return Brand{}, apperr.New(apperr.KindForbidden, CodePlanUpgradeRequired,
			"White-labelled reports need the Enterprise plan")
	}
	b, err := CheckBrand(in)
	if err != nil {
		return Brand{}, err
	}
	b.UpdatedAt = s.now().UTC()
	return s.repo.SaveBrand(ctx, who, b, !in.Logo.Set, Audit{Action: ActionBrandingUpdate, Target: who.OrgID, Details: BrandDetails(b, in)})
}

// ActionBrandingUpdate is what the organization's audit log (pkg/
// orgaudit) calls saving the white-labelling.
const ActionBrandingUpdate = "branding.update"

// Audit is a lender's action for the repository to record in the
// organization's audit log in the transaction of the change; who acted,
// and from which IP, is read from the request's context.
type Audit struct {
	Action  string
	Target  string
	Details map[string]any
}

// BrandDetails says what a save set: the name and colour, and what
// became of the logo (never the image itself).
func BrandDetails(b Brand, in BrandInput) map[string]any {
	logo := "replaced"
	switch {
	case !in.Logo.Set:
		logo = "kept"
	case in.Logo.Null:
		logo = "removed"
	}
	d := map[string]any{"displayName": b.DisplayName, "logo": logo}
	if b.Accent != "" {
		d["accentColour"] = b.Accent
	}
	return d
}

// Brand reads the caller's white-labelling, or ErrBrandNotSet.
func (s *Service) Brand(ctx context.Context, who Caller) (Brand, error) {
	return s.repo.Brand(ctx, who)
}
