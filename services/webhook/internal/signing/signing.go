// Package signing signs webhook deliveries as the Standard Webhooks
// specification says (https://www.standardwebhooks.com): an HMAC-SHA256
// of "id.timestamp.body" under each active secret, so a receiver can check
// the body, and the timestamp bounds how long a captured delivery can be
// replayed.
package signing

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
)

// Prefix starts every secret.
const Prefix = "whsec_"

// secretBytes is the random part of a secret (the specification asks for
// 24 to 64 bytes).
const secretBytes = 32

// ErrSecret is a secret that is not whsec_ + base64.
var ErrSecret = errors.New("signing: malformed secret")

// NewSecret returns a fresh secret: whsec_ + base64 of 32 random bytes.
func NewSecret() string {
	b := make([]byte, secretBytes)
	_, _ = rand.Read(b)
	return Prefix + base64.StdEncoding.EncodeToString(b)
}

// Key returns the HMAC key of a secret.
func Key(secret string) ([]byte, error) {
	rest, ok := strings.CutPrefix(secret, Prefix)
	if !ok {
		return nil, ErrSecret
	}
	k, err := base64.StdEncoding.DecodeString(rest)
	if err != nil || len(k) < 24 {
		return nil, ErrSecret
	}
	return k, nil
}

// Signature is the webhook-signature header for a message: "v1,<base64>"
// per secret, space-separated (several during a rotation).
func Signature(id string, timestamp int64, body []byte, secrets ...string) (string, error) {
	parts := make([]string, 0, len(secrets))
	for _, s := range secrets {
		k, err := Key(s)
		if err != nil {
			return "", err
		}
		m := hmac.New(sha256.New, k)
		m.Write([]byte(id))
		m.Write([]byte{'.'})
		m.Write([]byte(strconv.FormatInt(timestamp, 10)))
		m.Write([]byte{'.'})
		m.Write(body)
		parts = append(parts, "v1,"+base64.StdEncoding.EncodeToString(m.Sum(nil)))
	}
	return strings.Join(parts, " "), nil
}
