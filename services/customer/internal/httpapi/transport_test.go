package httpapi

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/envelope"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/services/customer/internal/customer"
)

// Requests that fail to decode are answered through the real routes
// without reaching the service (here there is none).
func TestRoutesAnswerDecodeErrors(t *testing.T) {
	mux := routes(t)
	cases := []struct {
		method, path, ctype, body string
		status                    int
		code, field               string
	}{
		{"POST", "/api/v1/customers", "", `{"firstName":`, http.StatusBadRequest, apperr.CodeInvalidJSON, ""},
		{"POST", "/api/v1/customers", "text/plain", `{}`, http.StatusUnsupportedMediaType, apperr.CodeUnsupportedMedia, ""},
		{"POST", "/api/v1/customers", "", `{"firstName":5,"addresses":[{"zip":"1"}]}`, http.StatusBadRequest, apperr.CodeValidation, "addresses[0].zip"},
		{"POST", "/api/v1/customers", "", strings.Repeat(" ", maxBody+1) + `{}`, http.StatusRequestEntityTooLarge, apperr.CodePayloadTooLarge, ""},
		{"PUT", "/api/v1/customers/cus_1", "", `{}`, http.StatusBadRequest, apperr.CodeValidation, "body"},
		{"PUT", "/api/v1/customers/cus_1", "", `{"status":"VERIFIED"}`, http.StatusBadRequest, apperr.CodeValidation, "status"},
		{"POST", "/api/v1/customers/cus_1/addresses", "", `{"city":1}`, http.StatusBadRequest, apperr.CodeValidation, "city"},
		{"GET", "/api/v1/customers?limit=0", "", ``, http.StatusBadRequest, apperr.CodeValidation, "limit"},
	}
	for _, c := range cases {
		r := httptest.NewRequest(c.method, c.path, strings.NewReader(c.body))
		if c.ctype != "" {
			r.Header.Set("Content-Type", c.ctype)
		}
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, r)
		var resp envelope.Response
		if err := json.Unmarshal(w.Body.Bytes(), &resp); err != nil || resp.Error == nil {
			t.Errorf("%s %s: %d %s", c.method, c.path, w.Code, w.Body)
			continue
		}
		if w.Code != c.status || resp.Error.Code != c.code {
			t.Errorf("%s %s %.40q: got %d %s, want %d %s", c.method, c.path, c.body, w.Code, resp.Error.Code, c.status, c.code)
		}
		if c.field != "" && !hasDetail(resp.Error.Details, c.field) {
			t.Errorf("%s %s: no detail for %s in %+v", c.method, c.path, c.field, resp.Error.Details)
		}
	}
}

func hasDetail(ds []apperr.Detail, field string) bool {
	for _, d := range ds {
		if d.Field == field {
			return true
		}
	}
	return false
}

// The domain names environments itself; they must stay the gateway's.
func TestEnvironmentsMatchThePrincipals(t *testing.T) {
	if customer.EnvTest != string(principal.EnvTest) || customer.EnvLive != string(principal.EnvLive) {
		t.Fatal("customer.EnvTest/EnvLive differ from principal.EnvTest/EnvLive")
	}
}
