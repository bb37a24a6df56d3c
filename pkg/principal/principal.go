// Package principal is how the gateway tells a service who is calling.
// The gateway authenticates the client (API key, dashboard session) and
// forwards a Principal in the X-Kyc-Principal header, signed with
// HMAC-SHA256, bound to the request's method and path, and valid for a
// short time. Services trust nothing else: a request whose principal is
// missing, forged, expired or for another request is rejected with 401.
package principal

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"slices"
	"strings"
	"sync"
	"time"
)

// Header carries the signed principal from the gateway to a service.
const Header = "X-Kyc-Principal"

// AgentTokenHeader carries a field agent's session token from the
// gateway to the verification service, which checks it (the gateway moves
// it out of Authorization, which services never receive).
const AgentTokenHeader = "X-Kyc-Agent-Token"

// Kind says how the caller was authenticated.
type Kind string

// Kinds of principals.
const (
	// KindAPIKey is a lender calling the public API: its back-end with an
	// API key, or a person from the dashboard with a session (UserID set).
	KindAPIKey Kind = "apikey"
	// KindEdge is an unauthenticated request vouched for by the gateway
	// (dashboard calls; the service checks the session cookie itself).
	KindEdge Kind = "edge"
	// KindGateway is the gateway calling a service on its own behalf.
	KindGateway Kind = "gateway"
	// KindService is another service calling on an organization's and
	// environment's behalf, inside the platform (never through the
	// gateway): the reporting service reading a customer's evidence photos
	// to put them in the report.
	KindService Kind = "service"
	// KindStaff is a member of our own operations staff, signed in to the
	// operations console (StaffID and Role set, no organization): it can
	// never come from an API key or a lender's dashboard session.
	KindStaff Kind = "staff"
	// KindAdminToken is the operators' admin token (kycctl) on a service's
	// /admin/v1 API. It is never signed or sent: the service puts it in
	// the request's context itself, so that the audit log can name it.
	KindAdminToken Kind = "admin-token"
)

// Env is the data environment a caller works in.
type Env string

// Environments. Sandbox data and live data never see each other.
const (
	EnvTest Env = "test"
	EnvLive Env = "live"
)

// Valid reports whether e is a known environment.
func (e Env) Valid() bool { return e == EnvTest || e == EnvLive }

// Scopes granted to API keys.
const (
	ScopeRead  = "kyc:read"
	ScopeWrite = "kyc:write"
)

// Principal is the caller as established by the gateway.
type Principal struct {
	Kind  Kind   `json:"kind"`
	OrgID string `json:"org,omitempty"`
	Env   Env    `json:"env,omitempty"`
	KeyID string `json:"key,omitempty"`
	// UserID is set instead of KeyID when a dashboard user calls the
	// public API from the dashboard page with a session.
	UserID string `json:"user,omitempty"`
	// MemberRole is the dashboard user's role in the organization, set
	// with UserID only.
	MemberRole MemberRole `json:"memberRole,omitempty"`
	Scopes     []string   `json:"scopes,omitempty"`
	Plan       string     `json:"plan,omitempty"`
	ClientIP   string     `json:"ip,omitempty"`
	// RecordLimit is the most live sandbox customer records the plan
	// allows; 0 means unlimited. It comes from auth-billing's plan table
	// so that no service hard-codes plan rules.
	RecordLimit int `json:"recordLimit,omitempty"`
	// StaffID, StaffName and Role are set for KindStaff only.
	StaffID   string `json:"staff,omitempty"`
	StaffName string `json:"staffName,omitempty"`
	Role      Role   `json:"role,omitempty"`

	Method  string `json:"m"`
	Path    string `json:"p"`
	Expires int64  `json:"exp"`
}

// HasScope reports whether the principal was granted scope.
func (p Principal) HasScope(scope string) bool { return slices.Contains(p.Scopes, scope) }

// Errors returned by Verify.
var (
	ErrMissing = errors.New("principal missing")
	ErrInvalid = errors.New("principal invalid")
	ErrExpired = errors.New("principal expired")
	ErrUnbound = errors.New("principal is for another request")
)

// Signer signs and verifies principals. The first secret signs; all of
// them verify, so a secret can be rotated without downtime.
type Signer struct {
	secrets []*macs // the first signs
	ttl     time.Duration
	now     func() time.Time
}

// macs recycles one secret's HMAC states: a fresh one hashes the padded
// key twice and allocates its digests, work every header repeated (the
// gateway signs one per request, every service verifies it), while a
// Reset one starts from the keyed state it kept.
type macs struct{ pool sync.Pool }

func newMACs(key []byte) *macs {
	m := &macs{}
	m.pool.New = func() any { return hmac.New(sha256.New, key) }
	return m
}

// sum returns the HMAC-SHA256 of body, appended to dst.
func (m *macs) sum(dst []byte, body string) []byte {
	h := m.pool.Get().(hash.Hash)
	h.Reset()
	_, _ = io.WriteString(h, body)
	dst = h.Sum(dst)
	m.pool.Put(h)
	return dst
}

// NewSigner returns a Signer. ttl bounds how long a signed header is valid.
func NewSigner(secrets []string, ttl time.Duration) (*Signer, error) {
	if len(secrets) == 0 {
		return nil, errors.New("principal: at least one secret is required")
	}
	s := &Signer{ttl: ttl, now: time.Now}
	for _, sec := range secrets {
		if len(sec) < 16 {
			return nil, errors.New("principal: secrets must be at least 16 bytes")
		}
		s.secrets = append(s.secrets, newMACs([]byte(sec)))
	}
	return s, nil
}

// Sign returns the header value for p bound to method and path.
func (s *Signer) Sign(p Principal, method, path string) string {
	p.Method, p.Path = method, path
	p.Expires = s.now().Add(s.ttl).Unix()
	payload, _ := json.Marshal(p)
	body := base64.RawURLEncoding.EncodeToString(payload)
	var sum [sha256.Size]byte
	return body + "." + base64.RawURLEncoding.EncodeToString(s.secrets[0].sum(sum[:0], body))
}

// Verify checks a header value for a request with method and path.
func (s *Signer) Verify(header, method, path string) (Principal, error) {
	if header == "" {
		return Principal{}, ErrMissing
	}
	body, sig, ok := strings.Cut(header, ".")
	if !ok {
		return Principal{}, ErrInvalid
	}
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil {
		return Principal{}, ErrInvalid
	}
	valid := false
	var sum [sha256.Size]byte
	for _, sec := range s.secrets {
		if hmac.Equal(got, sec.sum(sum[:0], body)) {
			valid = true
			break
		}
	}
	if !valid {
		return Principal{}, ErrInvalid
	}
	payload, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		return Principal{}, ErrInvalid
	}
	var p Principal
	if err := json.Unmarshal(payload, &p); err != nil {
		return Principal{}, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	if s.now().Unix() > p.Expires {
		return Principal{}, ErrExpired
	}
	if p.Method != method || p.Path != path {
		return Principal{}, ErrUnbound
	}
	if p.Kind == KindAPIKey && (p.OrgID == "" || !p.Env.Valid()) {
		return Principal{}, ErrInvalid
	}
	if p.Kind == KindStaff && (p.StaffID == "" || !p.Role.Valid() || p.OrgID != "" || p.MemberRole != "") {
		return Principal{}, ErrInvalid
	}
	// A member role belongs to a dashboard user of an organization only.
	if p.MemberRole != "" && (p.Kind != KindAPIKey || p.UserID == "" || !p.MemberRole.Valid()) {
		return Principal{}, ErrInvalid
	}
	return p, nil
}

type ctxKey struct{}

// With stores p in ctx.
func With(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, ctxKey{}, p)
}

// From returns the principal stored in ctx.
func From(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(ctxKey{}).(Principal)
	return p, ok
}
