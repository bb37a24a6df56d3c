package httpapi

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/envelope"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/pkg/wiretext"
)

func listCaller() context.Context {
	return principal.With(context.Background(), principal.Principal{Kind: principal.KindAPIKey, OrgID: "org_1", Env: principal.EnvTest, KeyID: "key_1"})
}

// decodeListQuery runs the list endpoint's decoder on a raw query string.
func decodeListQuery(raw string) (listRequest, error) {
	r := httptest.NewRequest(http.MethodGet, "/api/v1/customers", nil)
	r.URL.RawQuery = raw
	return decodeList(listCaller(), r)
}

// Text the database cannot hold is refused by the service itself, not
// only at the gateway: `?search=%00` used to reach Postgres and come back
// as a 500.
func TestDecodeListRefusesUnstorableText(t *testing.T) {
	cases := []struct{ query, field string }{
		{"search=%00", "search"},
		{"search=ngozi%00", "search"},
		{"search=%C3%28", "search"},
		{"search=caf%E9", "search"},
		{"status=%00", "status"},
		{"limit=1%00", "limit"},
		{"page=%FF", "page"},
		{"cursor=%FE", "cursor"},
		{"unknown=%00", "unknown"}, // not a parameter of the list, still refused
		{"x%00=1", "query"},
		{"search=ok&search=%00", "search"}, // a repeated parameter is checked whole
		{"", ""},
		{"search=Ad%C3%A9b%C3%ADs%C3%AD&status=pending&limit=5", ""},
	}
	for _, c := range cases {
		_, err := decodeListQuery(c.query)
		if c.field == "" {
			if err != nil {
				t.Errorf("%q refused: %v", c.query, err)
			}
			continue
		}
		e, ok := apperr.As(err)
		if !ok || envelope.Status(e.Kind) != http.StatusBadRequest || e.Code != apperr.CodeValidation ||
			len(e.Details) != 1 || e.Details[0].Field != c.field {
			t.Errorf("%q: got %v, want 400 VALIDATION_ERROR on %s", c.query, err, c.field)
		}
	}
}

// The list's query decoding answers any query with a query or a 4xx,
// never a server error, and whatever it accepts carries no text Postgres
// would refuse.
func FuzzDecodeList(f *testing.F) {
	for _, s := range []string{"", "search=ngozi", "search=%00", "search=%C3%28", "status=verified&limit=5&page=2",
		"cursor=MTcwMDAwMDAwMDAwMDAwMC5jdXNfMDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY", "search=+234%20803",
		"limit=%FF&page=%00", "search=" + strings.Repeat("a", 101), "search=a;b", "%zz=1&search=x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		req, err := decodeListQuery(raw)
		if err != nil {
			e, ok := apperr.As(err)
			if !ok || envelope.Status(e.Kind) >= 500 || envelope.Status(e.Kind) < 400 {
				t.Fatalf("%q: %v is not a client error", raw, err)
			}
			return
		}
		q := req.q
		for _, s := range []string{q.Status, q.Search.Text, q.Search.PhonePrefix, q.OrgID, q.Env} {
			if !wiretext.Valid(s) {
				t.Fatalf("%q: accepted unstorable text %q", raw, s)
			}
		}
		if q.Cursor != nil && !wiretext.Valid(q.Cursor.ID) {
			t.Fatalf("%q: accepted cursor id %q", raw, q.Cursor.ID)
		}
		if q.Limit < 1 || q.Limit > 100 || q.Page < 0 {
			t.Fatalf("%q: accepted limit %d, page %d", raw, q.Limit, q.Page)
		}
	})
}
