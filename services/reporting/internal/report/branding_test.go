package report_test

import (
	"bytes"
	"encoding/base64"
	"github.com/kycfield/kyc/pkg/optional"
	"image"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/services/reporting/internal/report"
)

func encoded(t *testing.T, w, h int, format string) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	var b bytes.Buffer
	if format == "png" {
		_ = png.Encode(&b, img)
	} else {
		_ = jpeg.Encode(&b, img, nil)
	}
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

func ptr(s string) *string { return &s }

func TestCheckBrand(t *testing.T) {
	cases := []struct {
		name   string
		in     report.BrandInput
		fields []string // the fields at fault, in order; none when valid
	}{
		{"name only", report.BrandInput{DisplayName: "Zenith Microfinance"}, nil},
		{"everything", report.BrandInput{DisplayName: "Ọ̀yọ́ Credit", AccentColour: ptr("#7a1fA2"), Logo: logoOf(encoded(t, 200, 80, "png"))}, nil},
		{"a JPEG logo", report.BrandInput{DisplayName: "Zenith", Logo: logoOf(encoded(t, 300, 100, "jpeg"))}, nil},
		{"name too short", report.BrandInput{DisplayName: " Z "}, []string{"displayName"}},
		{"name too long", report.BrandInput{DisplayName: strings.Repeat("n", 81)}, []string{"displayName"}},
		{"colour by name", report.BrandInput{DisplayName: "Zenith", AccentColour: ptr("purple")}, []string{"accentColour"}},
		{"short colour", report.BrandInput{DisplayName: "Zenith", AccentColour: ptr("#fff")}, []string{"accentColour"}},
		{"logo not base64", report.BrandInput{DisplayName: "Zenith", Logo: logoOf("%%%")}, []string{"logo"}},
		{"logo not an image", report.BrandInput{DisplayName: "Zenith", Logo: logoOf(base64.StdEncoding.EncodeToString([]byte("GIF89a....")))}, []string{"logo"}},
		{"logo too wide", report.BrandInput{DisplayName: "Zenith", Logo: logoOf(encoded(t, 2001, 10, "png"))}, []string{"logo"}},
		{"every problem at once", report.BrandInput{DisplayName: "", AccentColour: ptr("red"), Logo: logoOf("x")}, []string{"displayName", "accentColour", "logo"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, err := report.CheckBrand(tc.in)
			if len(tc.fields) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				if tc.in.Logo.Has() && !bytes.HasPrefix(b.Logo, []byte("\x89PNG")) {
					t.Fatal("the logo is not re-encoded as PNG")
				}
				return
			}
			e, ok := apperr.As(err)
			if !ok || e.Code != apperr.CodeValidation || len(e.Details) != len(tc.fields) {
				t.Fatalf("got %v, want problems with %v", err, tc.fields)
			}
			for i, f := range tc.fields {
				if e.Details[i].Field != f {
					t.Errorf("problem %d is %q, want %q", i, e.Details[i].Field, f)
				}
			}
		})
	}
}

func logoOf(s string) optional.Field[string] { return optional.Of(s) }
