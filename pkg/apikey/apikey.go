// Package apikey is what auth-billing and the gateway must agree on about
// API keys: the secret's format (its prefix names the environment), the
// hash keys are looked up by, the key and organization states auth-billing
// serves on its internal resolve API and publishes on auth-events for the
// gateway to cache, and the error code both answer when a plan has no live
// access. Keeping it in one place means the two sides cannot drift.
package apikey

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"

	"github.com/kycfield/kyc/pkg/principal"
)

// Secret prefixes: "mk_test_" keys reach the sandbox, "mk_live_" keys live data.
const (
	PrefixTest = "mk_test_"
	PrefixLive = "mk_live_"
)

// Event types auth-billing publishes on auth-events; the gateway applies
// them to its caches. Key events carry a State, organization events an
// OrgState.
const (
	EventOrgCreated  = "organization.created"
	EventPlanChanged = "organization.plan_changed"
	// EventSettingsChanged: an operations admin changed the organization's
	// review policy or SLA target.
	EventSettingsChanged = "organization.settings_changed"
	EventKeyCreated      = "apikey.created"
	EventKeyChanged      = "apikey.updated"
)

// ResolvePath is auth-billing's internal endpoint that resolves a key hash
// to its State and its organization's OrgState (gateway principals only).
const ResolvePath = "/internal/v1/keys/resolve"

// CodePlanUpgradeRequired refuses live access (an mk_live_ key at the
// gateway, creating or rolling one at auth-billing) on a plan without it.
const CodePlanUpgradeRequired = "PLAN_UPGRADE_REQUIRED"

// Prefix returns the secret prefix of env.
func Prefix(env principal.Env) string { return "mk_" + string(env) + "_" }

// EnvOf returns the environment a secret's prefix names.
func EnvOf(secret string) (principal.Env, bool) {
	switch {
	case strings.HasPrefix(secret, PrefixTest):
		return principal.EnvTest, true
	case strings.HasPrefix(secret, PrefixLive):
		return principal.EnvLive, true
	}
	return "", false
}

// Hash is how keys are looked up: high-entropy secrets need no slow hash,
// and SHA-256 lets the gateway cache by hash without holding the key.
func Hash(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

// HashHex is Hash in the hex form used on the wire and in cache keys.
func HashHex(secret string) string { return hex.EncodeToString(Hash(secret)) }

// State is a key as auth-billing describes it to the gateway.
type State struct {
	ID        string        `json:"id"`
	Hash      string        `json:"hash"` // HashHex of the secret
	OrgID     string        `json:"orgId"`
	Env       principal.Env `json:"environment"`
	Scopes    []string      `json:"scopes"`
	ExpiresAt *time.Time    `json:"expiresAt,omitempty"`
	Revoked   bool          `json:"revoked"`
	// Version grows with every change, so a cache can refuse older states.
	Version int64 `json:"version"`
	// Missing marks a negative cache entry (no such key); auth-billing
	// never sets it.
	Missing bool `json:"missing,omitempty"`
}

// Usable reports whether the key authenticates a request at now.
func (k State) Usable(now time.Time) bool {
	return !k.Missing && !k.Revoked && (k.ExpiresAt == nil || now.Before(*k.ExpiresAt))
}

// Plan is the part of an organization's plan the gateway enforces. The
// catalogue itself (names, prices, features) is auth-billing's alone.
type Plan struct {
	ID string `json:"id"` // "developer", "growth", "enterprise"
	// DailyRequests caps the organization's requests per UTC day, both
	// environments together; 0 means no cap.
	DailyRequests int `json:"dailyRequests"`
	// TestRecordLimit caps the sandbox customers; 0 means none.
	TestRecordLimit int  `json:"testRecordLimit"`
	LiveAccess      bool `json:"liveAccess"`
}

// OrgState is an organization as auth-billing describes it to the gateway.
type OrgState struct {
	ID string `json:"id"`
	// Name is the organization's name as it signed up (reports show it).
	Name string `json:"name,omitempty"`
	Plan Plan   `json:"plan"`
	// Version grows with every change, so a cache can refuse older states.
	Version int64 `json:"version"`
	// ReviewPolicy (NONE, FLAGGED, ALL) and SLAHours are the operations
	// settings; empty and 0 mean NONE and 72.
	ReviewPolicy string `json:"reviewPolicy,omitempty"`
	SLAHours     int    `json:"slaHours,omitempty"`
}
