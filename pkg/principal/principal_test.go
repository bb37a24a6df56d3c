package principal

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/kycfield/kyc/pkg/logging"
)

func signer(t *testing.T, secrets ...string) *Signer {
	t.Helper()
	s, err := NewSigner(secrets, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSignAndVerify(t *testing.T) {
	s := signer(t, "0123456789abcdef-secret")
	p := Principal{Kind: KindAPIKey, OrgID: "org_1", Env: EnvLive, KeyID: "key_1", Scopes: []string{ScopeRead}, Plan: "growth"}
	h := s.Sign(p, "GET", "/api/v1/customers")
	got, err := s.Verify(h, "GET", "/api/v1/customers")
	if err != nil || got.OrgID != "org_1" || got.Env != EnvLive || !got.HasScope(ScopeRead) || got.HasScope(ScopeWrite) {
		t.Fatalf("got %+v, %v", got, err)
	}
	cases := map[string]struct {
		header, method, path string
		want                 error
	}{
		"missing":      {"", "GET", "/api/v1/customers", ErrMissing},
		"garbage":      {"abc", "GET", "/api/v1/customers", ErrInvalid},
		"tampered":     {strings.Replace(h, h[5:6], string(rune(h[5]^1)), 1), "GET", "/api/v1/customers", ErrInvalid},
		"other method": {h, "DELETE", "/api/v1/customers", ErrUnbound},
		"other path":   {h, "GET", "/api/v1/customers/cus_1", ErrUnbound},
		"other secret": {signer(t, "another-secret-of-16b").Sign(p, "GET", "/x"), "GET", "/x", ErrInvalid},
	}
	for name, c := range cases {
		if _, err := s.Verify(c.header, c.method, c.path); !errors.Is(err, c.want) {
			t.Errorf("%s: got %v, want %v", name, err, c.want)
		}
	}
}

func TestExpiryAndRotation(t *testing.T) {
	old := signer(t, "old-secret-0123456789")
	rotated := signer(t, "new-secret-0123456789", "old-secret-0123456789")
	h := old.Sign(Principal{Kind: KindGateway}, "POST", "/x")
	if _, err := rotated.Verify(h, "POST", "/x"); err != nil {
		t.Fatalf("old secret must still verify during rotation: %v", err)
	}
	rotated.now = func() time.Time { return time.Now().Add(2 * time.Minute) }
	if _, err := rotated.Verify(h, "POST", "/x"); !errors.Is(err, ErrExpired) {
		t.Fatalf("expired: %v", err)
	}
	if _, err := NewSigner([]string{"short"}, time.Minute); err == nil {
		t.Fatal("short secret accepted")
	}
}

func TestRequireRejectsWithEnvelope(t *testing.T) {
	s := signer(t, "0123456789abcdef-secret")
	h := Require(s, logging.Discard(), KindAPIKey)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, _ := From(r.Context())
		_, _ = w.Write([]byte(p.OrgID))
	}))
	for name, hdr := range map[string]string{
		"none":       "",
		"wrong kind": s.Sign(Principal{Kind: KindEdge}, "GET", "/a"),
		"api key":    s.Sign(Principal{Kind: KindAPIKey, OrgID: "org_9", Env: EnvTest}, "GET", "/a"),
	} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", "/a", nil)
		if hdr != "" {
			req.Header.Set(Header, hdr)
		}
		h.ServeHTTP(rec, req)
		if name == "api key" {
			if rec.Code != 200 || rec.Body.String() != "org_9" {
				t.Errorf("valid principal: %d %s", rec.Code, rec.Body)
			}
			continue
		}
		if rec.Code != 401 || !strings.Contains(rec.Body.String(), `"code":"UNAUTHORIZED"`) {
			t.Errorf("%s: %d %s", name, rec.Code, rec.Body)
		}
	}
}

func FuzzVerify(f *testing.F) {
	s, _ := NewSigner([]string{"0123456789abcdef-secret"}, time.Minute)
	f.Add(s.Sign(Principal{Kind: KindAPIKey, OrgID: "o", Env: EnvTest}, "GET", "/"))
	f.Add("a.b")
	f.Fuzz(func(t *testing.T, h string) {
		p, err := s.Verify(h, "GET", "/")
		if err == nil && (p.Kind == "" || p.Method != "GET") {
			t.Fatalf("accepted %q as %+v", h, p)
		}
	})
}

// BenchmarkSignVerify is what the gateway (Sign) and a service (Verify)
// spend on every request's principal.
func BenchmarkSignVerify(b *testing.B) {
	s, err := NewSigner([]string{"0123456789abcdef-bench"}, time.Minute)
	if err != nil {
		b.Fatal(err)
	}
	p := Principal{Kind: KindAPIKey, OrgID: "org_1", Env: EnvLive, KeyID: "key_1", Scopes: []string{ScopeRead, ScopeWrite}, Plan: "enterprise", ClientIP: "127.0.0.1"}
	b.ReportAllocs()
	for b.Loop() {
		h := s.Sign(p, "GET", "/api/v1/customers/cus_1")
		if _, err := s.Verify(h, "GET", "/api/v1/customers/cus_1"); err != nil {
			b.Fatal(err)
		}
	}
}
