// Package keys authenticates API keys at the gateway. A key is looked up
// by its SHA-256 in an in-process cache, then in Redis (shared by every
// gateway instance), then at auth-billing. Every cached state carries a
// version and a newer version always wins, so an invalidation event
// (revocation, roll, plan change) can never be overwritten by a slower,
// older read; each instance applies those events from Kafka within
// milliseconds.
package keys

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"time"

	"github.com/kycfield/kyc/pkg/principal"
)

// KeyState is a key as auth-billing describes it.
type KeyState struct {
	ID        string        `json:"id"`
	Hash      string        `json:"hash"`
	OrgID     string        `json:"orgId"`
	Env       principal.Env `json:"environment"`
	Scopes    []string      `json:"scopes"`
	ExpiresAt *time.Time    `json:"expiresAt,omitempty"`
	Revoked   bool          `json:"revoked"`
	Version   int64         `json:"version"`
	// Missing marks a negative cache entry: no such key.
	Missing bool `json:"missing,omitempty"`
}

// Plan is the part of an organization's plan the gateway enforces.
type Plan struct {
	ID              string `json:"id"`
	DailyRequests   int    `json:"dailyRequests"`
	TestRecordLimit int    `json:"testRecordLimit"`
	LiveAccess      bool   `json:"liveAccess"`
}

// OrgState is an organization as auth-billing describes it.
type OrgState struct {
	ID      string `json:"id"`
	Plan    Plan   `json:"plan"`
	Version int64  `json:"version"`
}

// Identity is an authenticated caller.
type Identity struct {
	Key KeyState
	Org OrgState
}

// Errors of Resolve.
var (
	// ErrInvalid means the key is unknown, revoked, expired or malformed.
	ErrInvalid = errors.New("invalid API key")
	// ErrUnavailable means the key could not be checked (auth-billing
	// down and nothing cached): the caller should answer 503, not 401.
	ErrUnavailable = errors.New("key store unavailable")
)

// Hash returns the lookup hash of a secret.
func Hash(secret string) string {
	h := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(h[:])
}

// EnvOf returns the environment named by a key's prefix.
func EnvOf(secret string) (principal.Env, bool) {
	switch {
	case strings.HasPrefix(secret, "mk_test_"):
		return principal.EnvTest, true
	case strings.HasPrefix(secret, "mk_live_"):
		return principal.EnvLive, true
	}
	return "", false
}

// Usable reports whether k authenticates a request at now.
func (k KeyState) Usable(now time.Time) bool {
	return !k.Missing && !k.Revoked && (k.ExpiresAt == nil || now.Before(*k.ExpiresAt))
}

// Source is where keys come from on a cache miss (auth-billing).
type Source interface {
	Resolve(ctx context.Context, hash string) (KeyState, OrgState, error)
}

// ErrNotFound is returned by a Source for an unknown hash.
var ErrNotFound = errors.New("key not found")
