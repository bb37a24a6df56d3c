package httpapi

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/envelope"
	"github.com/kycfield/kyc/pkg/jsonbody"
)

// FuzzDecodeBrand: any branding body is a request or a client error
// (never a panic, never a 5xx), and a display name that is accepted holds
// no control character: it is printed on every report.
func FuzzDecodeBrand(f *testing.F) {
	for _, s := range []string{`{"displayName":"Ade Loans","accentColour":"#0a7d5a"}`, `{"displayName":null,"logo":null}`,
		"{\"displayName\":\"Ade\\u0000Loans\"}", "{\"displayName\":\"\\u001b]0;pwned\\u0007\"}", `{`, `[]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		r := httptest.NewRequest("PUT", "/api/v1/reports/branding", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		req, err := decodeBrand(context.Background(), r)
		if err == nil {
			if !jsonbody.OnlyPlainText(req.in) {
				t.Fatalf("%q decoded with a control character: %+v", body, req.in)
			}
			return
		}
		if e, ok := apperr.As(err); !ok || envelope.Status(e.Kind) >= 500 {
			t.Fatalf("%q: %v", body, err)
		}
	})
}
