package httpapi_test

import (
	"testing"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/jsonbody"
	"github.com/kycfield/kyc/services/webhook/internal/httpapi"
)

// FuzzDecodeCreate: any body decodes or fails with a client error (never
// a panic, never an internal error), for create and update alike.
func FuzzDecodeCreate(f *testing.F) {
	for _, s := range []string{`{"url":"https://hooks.example.com/kyc"}`, `{"url":5}`, `{"events":null,"enabled":true}`,
		`{"events":["*","verification.completed"],"description":"x"}`, `[]`, `{"url":"x","secret":"whsec_"}`, `{`, ``} {
		f.Add([]byte(s))
	}
	f.Add([]byte("{\"url\":\"https://hooks.example.com/kyc\",\"description\":\"ops \\u001b[31mred\"}"))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, cerr := httpapi.DecodeCreate(b)
		u, uerr := httpapi.DecodeUpdate(b)
		for i, err := range []error{cerr, uerr} {
			if err == nil {
				if in := []any{c, u}[i]; !jsonbody.OnlyPlainText(in) {
					t.Fatalf("%q decoded with a control character: %+v", b, in)
				}
				continue
			}
			e, ok := apperr.As(err)
			if !ok || e.Kind == apperr.KindInternal {
				t.Fatalf("%q: %v", b, err)
			}
		}
	})
}
