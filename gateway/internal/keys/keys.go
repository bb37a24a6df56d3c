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
	"errors"

	"github.com/kycfield/kyc/pkg/apikey"
)

// KeyState is a key as auth-billing describes it (the shared contract).
type KeyState = apikey.State

// Plan is the part of an organization's plan the gateway enforces (the
// shared contract).
type Plan = apikey.Plan

// OrgState is an organization as auth-billing describes it (the shared
// contract).
type OrgState = apikey.OrgState

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

// Source is where keys come from on a cache miss (auth-billing).
type Source interface {
	Resolve(ctx context.Context, hash string) (KeyState, OrgState, error)
}

// ErrNotFound is returned by a Source for an unknown hash.
var ErrNotFound = errors.New("key not found")
