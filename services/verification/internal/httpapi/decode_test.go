package httpapi

import (
	"context"
	"math"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/envelope"
	"github.com/kycfield/kyc/pkg/jsonbody"
	"github.com/kycfield/kyc/services/verification/internal/verification"
)

// clientError fails unless err is one the client is answered with a 4xx.
func clientError(t *testing.T, err error) {
	t.Helper()
	e, ok := apperr.As(err)
	if !ok || envelope.Status(e.Kind) >= 500 {
		t.Fatalf("not a client error: %v", err)
	}
}

// FuzzDecodeTaskChange: any body and key decode to a request or to a
// client error, never a panic or a 5xx; a decoded request carries the key
// and a fingerprint of the body.
func FuzzDecodeTaskChange(f *testing.F) {
	for _, s := range []string{`{"outcome":"VERIFIED","verifiedAddress":"12 Adeola Odeku Street","latitude":6.4,"longitude":3.4,"accuracy":5}`,
		`{"outcome":"NO_ACCESS","latitude":6.4,"longitude":3.4,"accuracy":5,"resident":{"yearsAtAddress":"four"}}`,
		`{`, `[]`, `null`, `{"latitude":1e999}`, "{\"notes\":\"\x00\"}", `{"outcome":"VERIFIED","outcome":"REJECTED"}`} {
		f.Add(s, "key-1")
		f.Add(s, "")
	}
	f.Fuzz(func(t *testing.T, body, key string) {
		r := httptest.NewRequest("POST", "/agent/v1/tasks/adr_1/complete", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Idempotency-Key", key)
		r.SetPathValue("addressId", "adr_1")
		req, err := decodeTaskChange[complete](context.Background(), r)
		if err != nil {
			clientError(t, err)
			return
		}
		if !jsonbody.OnlyPlainText(req.in) {
			t.Fatalf("%q decoded with a control character: %+v", body, req.in)
		}
		if req.idem.Key != key || len(req.idem.Fingerprint) != 64 || req.addressID != "adr_1" {
			t.Fatalf("decoded %+v", req)
		}
	})
}

// FuzzPhotoForm: the text fields of a photo upload are accepted only with
// a position a JSON answer can carry, else refused as a client error.
func FuzzPhotoForm(f *testing.F) {
	f.Add("building_front", "2026-11-26T09:00:00Z", "6.4282", "3.4218", "8")
	f.Add("street_view", "", "", "", "")
	f.Add("gate", "yesterday", "NaN", "3.4", "")
	f.Add("gate", "", "6.4", "3.4", "Inf")
	f.Add("", "2026-11-26T09:00:00+01:00", "-91", "181", "-1")
	f.Fuzz(func(t *testing.T, tag, capturedAt, lat, lng, acc string) {
		var p verification.Photo
		err := photoForm{tag: tag, capturedAt: capturedAt, latitude: lat, longitude: lng, accuracy: acc}.apply(&p)
		if err != nil {
			clientError(t, err)
			return
		}
		if p.Tag != tag || p.CapturedAt.IsZero() || p.CapturedAt.Location().String() != "UTC" {
			t.Fatalf("applied %+v", p)
		}
		if d := p.Device; d != nil {
			for _, v := range []float64{d.Latitude, d.Longitude, d.Accuracy} {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("a position JSON cannot carry: %+v", d)
				}
			}
			if d.Latitude < -90 || d.Latitude > 90 || d.Longitude < -180 || d.Longitude > 180 || d.Accuracy < 0 {
				t.Fatalf("a position out of range: %+v", d)
			}
		}
	})
}

// FuzzDecodeDecision: any review decision body decodes to a request or to
// a client error, never a panic or a 5xx; decoded text is plain.
func FuzzDecodeDecision(f *testing.F) {
	for _, s := range []string{`{"decision":"APPROVE"}`, `{"decision":"REJECT","reason":"WRONG_ADDRESS","note":"Another house."}`,
		`{"decision":"REVISIT","note":"Photo the gate","agentId":"agt_019a2b3c4d5e6f708192a3b4c5d6e7f8"}`,
		`{`, `[]`, `null`, `{"decision":7}`, "{\"note\":\"\x00\"}", `{"decision":"APPROVE","extra":1}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		r := httptest.NewRequest("POST", "/ops/v1/reviews/adr_1/decision", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.SetPathValue("addressId", "adr_1")
		req, err := decodeDecision(context.Background(), r)
		if err != nil {
			clientError(t, err)
			return
		}
		if !jsonbody.OnlyPlainText(req) || req.addressID != "adr_1" {
			t.Fatalf("%q decoded as %+v", body, req)
		}
	})
}

func TestDecodeReviewList(t *testing.T) {
	for q, want := range map[string]int{"": 20, "?limit=1": 1, "?limit=100": 100, "?limit=0": 0, "?limit=101": 0, "?limit=ten": 0, "?limit=-1": 0} {
		got, err := decodeReviewList(context.Background(), httptest.NewRequest("GET", "/ops/v1/reviews"+q, nil))
		switch {
		case want == 0 && err == nil:
			t.Errorf("%q: accepted as %d", q, got.limit)
		case want == 0:
			clientError(t, err)
		case err != nil || got.limit != want:
			t.Errorf("%q: %d %v; want %d", q, got.limit, err, want)
		}
	}
}
