package verification

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"time"

	"github.com/kycfield/kyc/pkg/apperr"
)

// Field-agent sign-in limits. Every attempt is counted before its code is
// compared (ReserveSignIn), so parallel attempts cannot pass a limit, and
// a successful one is given back (SignedIn).
//
//   - 20 attempts per client address per 15 minutes, whatever the phone:
//     one address cannot sweep phone numbers. A success gives its
//     attempt back, so agents signing in behind one carrier address do
//     not use each other's allowance.
//   - 5 attempts per (phone, client address) pair per 15 minutes: an
//     outsider who knows an agent's phone gets 5 guesses an address.
//     Beyond either limit: 429 TOO_MANY_ATTEMPTS with Retry-After.
//   - A code dies after maxCodeTries wrong codes in all, from anywhere.
//
// Why 100 in all: a code is 6 random digits (one in 10^6) and lives 15
// minutes (CodeTTL). k wrong guesses of distinct codes find it with
// probability k/10^6, so 100 guesses give an attacker at most 1 in 10,000
// per code issued (NIST SP 800-63B §5.2.2 caps failed attempts per
// authenticator at 100). To spend those 100 inside a code's 15 minutes an
// attacker needs at least 20 client addresses (5 each); from one address
// they make 5 guesses (1 in 200,000) and leave the agent's code alive: the
// agent, from their own address, still has their own 5 tries. The old
// limit, 5 wrong codes in all, let anyone who knew the phone kill the
// code from anywhere.
const (
	signInWindow       = 15 * time.Minute
	signInsPerAddress  = 20
	signInsPerPairAddr = 5
	maxCodeTries       = 100
)

// CodeTooManyAttempts refuses a sign-in over a limit, with Retry-After.
const CodeTooManyAttempts = "TOO_MANY_ATTEMPTS"

// SignInLimit is one counter an attempt is counted against.
type SignInLimit struct {
	Key string
	Max int
}

// SignInAttempts is the part of the store that counts sign-in attempts.
type SignInAttempts interface {
	// ReserveSignIn counts one attempt against every limit within the
	// window starting now, unless one of them is already full; it then
	// counts nothing and returns when the refusing window ends (the zero
	// time when the attempt was counted).
	ReserveSignIn(ctx context.Context, limits []SignInLimit, now time.Time, window time.Duration) (retryAt time.Time, err error)
	// SignedIn gives a successful attempt back to the counter giveBack and
	// clears the counter clear.
	SignedIn(ctx context.Context, giveBack, clear string) error
}

// signInKeys names an attempt's counters. The phone is hashed: it may be
// anything a caller sent (the key must stay short), and the table then
// holds no phone numbers.
func signInKeys(phone, clientIP string) (address, pair string) {
	h := sha256.Sum256([]byte(phone))
	return "ip:" + clientIP, "pair:" + hex.EncodeToString(h[:16]) + "|" + clientIP
}

// reserveSignIn counts a sign-in attempt before its code is compared.
func (s *Service) reserveSignIn(ctx context.Context, phone, clientIP string, now time.Time) error {
	address, pair := signInKeys(phone, clientIP)
	retry, err := s.store.ReserveSignIn(ctx, []SignInLimit{{address, signInsPerAddress}, {pair, signInsPerPairAddr}}, now, signInWindow)
	if err != nil {
		return err
	}
	if retry.IsZero() {
		return nil
	}
	wait := max(retry.Sub(now), time.Second)
	return apperr.New(apperr.KindRateLimited, CodeTooManyAttempts, "Too many sign-in attempts from this address; try again later").
		WithHeader("Retry-After", strconv.Itoa(int((wait+time.Second-1)/time.Second)))
}
