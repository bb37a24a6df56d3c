// Package idempotency makes POST retries safe: the first response for an
// (organization, environment, Idempotency-Key) is kept for 24 hours and
// replayed to retries with the same request; a different request with the
// same key is refused, and a retry while the first is still running is
// told so.
package idempotency

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"hash"
	"net/http"
	"time"

	"github.com/redis/go-redis/v9"
)

// Header is the request header clients send.
const Header = "Idempotency-Key"

// ReplayedHeader marks a replayed response.
const ReplayedHeader = "Idempotent-Replayed"

// Outcome of Begin.
type Outcome int

// Outcomes.
const (
	Proceed    Outcome = iota // first time: run the request, then Complete or Abandon
	Replay                    // a stored response exists
	Reused                    // the key was used for a different request
	InProgress                // the first request has not finished
)

// Stored is a kept response.
type Stored struct {
	Fingerprint string      `json:"fp"`
	Running     bool        `json:"running,omitempty"`
	Status      int         `json:"status,omitempty"`
	Header      http.Header `json:"header,omitempty"`
	Body        []byte      `json:"body,omitempty"`
}

// Store keeps records in Redis.
type Store struct {
	rdb     redis.UniversalClient
	prefix  string
	ttl     time.Duration
	lockTTL time.Duration
}

// New returns a Store; ttl is how long responses are kept, lockTTL how
// long an unfinished request blocks retries (so a crashed gateway does not
// block a key for a day).
func New(rdb redis.UniversalClient, prefix string, ttl, lockTTL time.Duration) *Store {
	return &Store{rdb: rdb, prefix: prefix + "idem:", ttl: ttl, lockTTL: lockTTL}
}

// ValidKey reports whether a client key is acceptable: 1-255 visible ASCII.
func ValidKey(k string) bool {
	if len(k) == 0 || len(k) > 255 {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x21 || k[i] > 0x7e {
			return false
		}
	}
	return true
}

// Fingerprint identifies a request: method, path and exact body. Uploads
// use StreamedBody instead.
func Fingerprint(method, path string, body []byte) string {
	h := sha256.New()
	h.Write([]byte(method + " " + path + "\n"))
	h.Write(body)
	return Sum(h)
}

// Sum is the fingerprint of what was written to h.
func Sum(h hash.Hash) string { return hex.EncodeToString(h.Sum(nil)) }

func (s *Store) key(scope, k string) string { return s.prefix + scope + ":" + k }

// Begin claims a key or reports what is already there.
func (s *Store) Begin(ctx context.Context, scope, k, fp string) (Outcome, *Stored, error) {
	st, err := s.Claim(ctx, scope, k, fp)
	if err != nil || st == nil {
		return Proceed, nil, err
	}
	return Judge(st, fp), st, nil
}

// Claim claims a key for a request whose fingerprint may not be known yet
// (fp is "" for an upload still to be streamed; Complete records it). It
// returns nil when the key is now claimed, or the record already there,
// which the caller Judges once it knows its own fingerprint: a retried
// upload is hashed as it is read, never buffered.
func (s *Store) Claim(ctx context.Context, scope, k, fp string) (*Stored, error) {
	rk := s.key(scope, k)
	claim, _ := json.Marshal(Stored{Fingerprint: fp, Running: true})
	for range 3 {
		ok, err := s.rdb.SetNX(ctx, rk, claim, s.lockTTL).Result()
		if err != nil {
			return nil, err
		}
		if ok {
			return nil, nil
		}
		raw, err := s.rdb.Get(ctx, rk).Bytes()
		if errors.Is(err, redis.Nil) {
			continue // expired between the two calls: claim again
		}
		if err != nil {
			return nil, err
		}
		var st Stored
		if err := json.Unmarshal(raw, &st); err != nil {
			return nil, err
		}
		return &st, nil
	}
	return nil, errors.New("idempotency: key churned")
}

// Judge says what a request with fingerprint fp ("" while not known yet)
// gets from a record that already holds its key. A running upload's
// fingerprint is not known until it has streamed, so a running record
// answers InProgress unless both fingerprints are known and differ.
func Judge(st *Stored, fp string) Outcome {
	switch {
	case st.Running && (st.Fingerprint == "" || fp == "" || st.Fingerprint == fp):
		return InProgress
	case st.Fingerprint != fp:
		return Reused
	}
	return Replay
}

// Complete stores the final response of a claimed key.
func (s *Store) Complete(ctx context.Context, scope, k string, st Stored) error {
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	return s.rdb.Set(ctx, s.key(scope, k), b, s.ttl).Err()
}

// Abandon releases a claim without storing a response (server errors), so
// that a retry runs again.
func (s *Store) Abandon(ctx context.Context, scope, k string) error {
	return s.rdb.Del(ctx, s.key(scope, k)).Err()
}
