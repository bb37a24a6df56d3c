package account

import (
	"crypto/rand"
	"slices"
	"strings"
	"time"

	"github.com/kycfield/kyc/pkg/apikey"
	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/principal"
)

// Key is an API key as stored: never the secret, only its SHA-256 hash and
// a short display prefix.
type Key struct {
	ID         string        `json:"id"`
	OrgID      string        `json:"orgId"`
	Env        principal.Env `json:"environment"`
	Scopes     []string      `json:"scopes"`
	Name       string        `json:"name"`
	Prefix     string        `json:"displayPrefix"`
	Hash       []byte        `json:"-"`
	CreatedAt  time.Time     `json:"createdAt"`
	LastUsedAt *time.Time    `json:"lastUsedAt"`
	RevokedAt  *time.Time    `json:"revokedAt"`
	ExpiresAt  *time.Time    `json:"expiresAt"`
	ReplacedBy string        `json:"replacedBy,omitempty"`
	Version    int64         `json:"-"`
}

// Active reports whether the key authenticates at time now.
func (k Key) Active(now time.Time) bool {
	return k.RevokedAt == nil && (k.ExpiresAt == nil || now.Before(*k.ExpiresAt))
}

// secretAlphabet is base62: keys survive double-click selection and URLs.
const secretAlphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// secretLen random base62 characters carry about 190 bits.
const secretLen = 32

// displayLen is how much of the key is kept in clear for humans.
const displayLen = 12

// NewSecret returns a fresh key for env ("mk_test_..." or "mk_live_...").
func NewSecret(env principal.Env) string {
	var b strings.Builder
	b.WriteString(apikey.Prefix(env))
	buf := make([]byte, 64)
	for b.Len() < len(apikey.PrefixTest)+secretLen {
		_, _ = rand.Read(buf)
		for _, c := range buf {
			// Rejection sampling keeps the distribution uniform.
			if int(c) < 248 && b.Len() < len(apikey.PrefixTest)+secretLen {
				b.WriteByte(secretAlphabet[int(c)%62])
			}
		}
	}
	return b.String()
}

// DisplayPrefix is the part of a secret shown in key lists.
func DisplayPrefix(secret string) string { return secret[:displayLen] }

// ValidateScopes checks a requested scope list and returns it sorted and
// de-duplicated.
func ValidateScopes(scopes []string) ([]string, error) {
	if len(scopes) == 0 {
		return nil, apperr.Validation(apperr.Detail{Field: "scopes", Message: "at least one scope is required (kyc:read, kyc:write)"})
	}
	out := make([]string, 0, len(scopes))
	for _, s := range scopes {
		s = strings.TrimSpace(s)
		if s != principal.ScopeRead && s != principal.ScopeWrite {
			return nil, apperr.Validation(apperr.Detail{Field: "scopes", Message: "unknown scope " + quote(s) + "; use kyc:read and/or kyc:write"})
		}
		out = append(out, s)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// ValidateEnv checks an environment name.
func ValidateEnv(env string) (principal.Env, error) {
	e := principal.Env(env)
	if !e.Valid() {
		return "", apperr.Validation(apperr.Detail{Field: "environment", Message: "must be test or live"})
	}
	return e, nil
}

func quote(s string) string { return "\"" + s + "\"" }
