// Package keyring encrypts small secrets at rest (BVN, NIN, webhook
// secrets) with AES-256-GCM. Each ciphertext names the key that sealed it,
// so keys can be rotated: new data uses the active key, old data stays
// readable while its key is kept in the ring.
package keyring

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// Keyring holds named AES-256 keys and which one seals new data.
type Keyring struct {
	active string
	aeads  map[string]cipher.AEAD
}

// ErrDecrypt is returned for ciphertexts that fail authentication or name
// an unknown key.
var ErrDecrypt = errors.New("keyring: cannot decrypt")

// Parse reads "id1:base64key,id2:base64key" (32-byte keys, standard
// base64) and the id of the active key.
func Parse(spec, active string) (*Keyring, error) {
	k := &Keyring{active: active, aeads: map[string]cipher.AEAD{}}
	for _, part := range strings.Split(spec, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		id, b64, ok := strings.Cut(part, ":")
		if !ok || id == "" || len(id) > 32 {
			return nil, fmt.Errorf("keyring: entry %q is not id:base64key", id)
		}
		key, err := base64.StdEncoding.DecodeString(b64)
		if err != nil || len(key) != 32 {
			return nil, fmt.Errorf("keyring: key %q must be 32 bytes of standard base64", id)
		}
		block, _ := aes.NewCipher(key)
		aead, _ := cipher.NewGCM(block)
		k.aeads[id] = aead
	}
	if _, ok := k.aeads[active]; !ok {
		return nil, fmt.Errorf("keyring: active key %q is not in the ring", active)
	}
	return k, nil
}

// Seal encrypts plaintext with the active key. aad binds the ciphertext to
// its context (e.g. record id and field) so it cannot be moved elsewhere.
// Layout: len(id) | id | nonce | ciphertext+tag.
func (k *Keyring) Seal(plaintext, aad []byte) []byte {
	aead := k.aeads[k.active]
	out := make([]byte, 0, 1+len(k.active)+aead.NonceSize()+len(plaintext)+aead.Overhead())
	out = append(out, byte(len(k.active)))
	out = append(out, k.active...)
	nonce := make([]byte, aead.NonceSize())
	_, _ = rand.Read(nonce)
	out = append(out, nonce...)
	return aead.Seal(out, nonce, plaintext, aad)
}

// Open decrypts a value made by Seal with the same aad.
func (k *Keyring) Open(sealed, aad []byte) ([]byte, error) {
	if len(sealed) < 1 {
		return nil, ErrDecrypt
	}
	n := int(sealed[0])
	if len(sealed) < 1+n {
		return nil, ErrDecrypt
	}
	aead, ok := k.aeads[string(sealed[1:1+n])]
	if !ok {
		return nil, ErrDecrypt
	}
	rest := sealed[1+n:]
	if len(rest) < aead.NonceSize()+aead.Overhead() {
		return nil, ErrDecrypt
	}
	pt, err := aead.Open(nil, rest[:aead.NonceSize()], rest[aead.NonceSize():], aad)
	if err != nil {
		return nil, ErrDecrypt
	}
	return pt, nil
}

// KeyID returns the id of the key that sealed a value, for re-encryption
// jobs that move old data to the active key.
func KeyID(sealed []byte) string {
	if len(sealed) < 1 || len(sealed) < 1+int(sealed[0]) {
		return ""
	}
	return string(sealed[1 : 1+int(sealed[0])])
}
