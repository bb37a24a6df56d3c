package httpapi

import (
	"slices"
	"testing"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/jsonbody"
	"github.com/kycfield/kyc/pkg/publicurl"
	"github.com/kycfield/kyc/services/document/internal/document"
)

// FuzzJSONForm: any body is either refused with INVALID_JSON or
// VALIDATION_ERROR, or gives a document that obeys every rule.
func FuzzJSONForm(f *testing.F) {
	f.Add([]byte(`{"fileName":"id.jpg","fileUrl":"https://files.example.com/id.jpg","fileType":"image/jpeg","fileSize":2048,"documentType":"ID_CARD"}`), true)
	f.Add([]byte(`{"fileName":"a/b","fileUrl":"http://127.0.0.1/","fileType":"text/html","fileSize":-1,"documentType":null}`), false)
	f.Add([]byte(`{"fileName":"\u0000","fileSize":1e400,"id":"x"}`), true)
	f.Add([]byte(`[]`), false)
	f.Fuzz(func(t *testing.T, body []byte, sandbox bool) {
		env := "live"
		if sandbox {
			env = document.EnvTest
		}
		o, err := jsonbody.Parse(body)
		if err == nil {
			var in document.LinkInput
			if in, err = DecodeLink(o); err == nil {
				var d document.Document
				if d, err = document.CheckLink(in, env); err == nil {
					if document.CheckFileName(d.FileName) != "" || publicurl.Check(d.FileURL, sandbox) != "" ||
						!slices.Contains(document.FileTypes, d.FileType) || !slices.Contains(document.DocumentTypes, d.DocumentType) ||
						d.FileSize < 1 || d.FileSize > document.MaxFileSize {
						t.Fatalf("accepted %+v from %q", d, body)
					}
					return
				}
			}
		}
		e, ok := apperr.As(err)
		if !ok || (e.Code != apperr.CodeValidation && e.Code != apperr.CodeInvalidJSON) {
			t.Fatalf("%q: %v", body, err)
		}
	})
}
