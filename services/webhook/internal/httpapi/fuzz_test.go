package httpapi_test

import (
	"testing"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/services/webhook/internal/httpapi"
)

// FuzzDecodeCreate: any body decodes or fails with a client error (never
// a panic, never an internal error), for create and update alike.
func FuzzDecodeCreate(f *testing.F) {
	for _, s := range []string{`{"url":"https://hooks.example.com/kyc"}`, `{"url":5}`, `{"events":null,"enabled":true}`,
		`{"events":["*","verification.completed"],"description":"x"}`, `[]`, `{"url":"x","secret":"whsec_"}`, `{`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, err := range []error{first(httpapi.DecodeCreate(b)), first(httpapi.DecodeUpdate(b))} {
			if err == nil {
				continue
			}
			e, ok := apperr.As(err)
			if !ok || e.Kind == apperr.KindInternal {
				t.Fatalf("%q: %v", b, err)
			}
		}
	})
}

func first[T any](_ T, err error) error { return err }
