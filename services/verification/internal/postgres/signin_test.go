package postgres_test

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/pkg/objstore/pending"
	"github.com/kycfield/kyc/pkg/outbox"
	"github.com/kycfield/kyc/pkg/pgtest"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/services/verification/internal/events"
	"github.com/kycfield/kyc/services/verification/internal/postgres"
	"github.com/kycfield/kyc/services/verification/internal/verification"
	"github.com/kycfield/kyc/services/verification/internal/verification/view"
	"github.com/kycfield/kyc/services/verification/migrations"
)

// Parallel attempts are counted before anything is compared: exactly the
// limit gets through, and the refused ones count nowhere.
func TestReserveSignInUnderABurst(t *testing.T) {
	t.Parallel()
	f := setup(t)
	now := time.Now()
	limits := []verification.SignInLimit{{Key: "ip:198.51.100.7", Max: 20}, {Key: "pair:x|198.51.100.7", Max: 5}}
	var counted atomic.Int64
	var wg sync.WaitGroup
	for range 40 {
		wg.Go(func() {
			retry, err := f.store.ReserveSignIn(f.ctx, limits, now, time.Minute)
			if err != nil {
				t.Error(err)
			} else if retry.IsZero() {
				counted.Add(1)
			} else if !retry.Equal(now.Add(time.Minute).Truncate(time.Microsecond)) {
				t.Errorf("retry at %v", retry)
			}
		})
	}
	wg.Wait()
	if counted.Load() != 5 {
		t.Fatalf("%d attempts counted; want 5", counted.Load())
	}
	var n int
	if err := f.pool.QueryRow(f.ctx, `SELECT attempts FROM agent_signin_attempts WHERE key = 'ip:198.51.100.7'`).Scan(&n); err != nil || n != 5 {
		t.Fatalf("the address counted %d (%v); refused attempts must count nowhere", n, err)
	}
	// The window ends: counting starts afresh.
	if retry, err := f.store.ReserveSignIn(f.ctx, limits, now.Add(time.Minute), time.Minute); err != nil || !retry.IsZero() {
		t.Fatalf("after the window: %v %v", retry, err)
	}
	// A success gives its attempt back to the address and clears the pair.
	if err := f.store.SignedIn(f.ctx, "ip:198.51.100.7", "pair:x|198.51.100.7"); err != nil {
		t.Fatal(err)
	}
	if err := f.pool.QueryRow(f.ctx, `SELECT attempts FROM agent_signin_attempts WHERE key = 'ip:198.51.100.7'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("after a success the address counts %d (%v)", n, err)
	}
}

func issue(t *testing.T, f fixture) (phone, code string) {
	t.Helper()
	phone = fmt.Sprintf("+23480%08d", time.Now().UnixNano()%1e8)
	// Operations act with the admin token (kycctl): their changes are audited.
	ops := principal.With(f.ctx, principal.Principal{Kind: principal.KindAdminToken})
	a, err := f.svc.CreateAgent(ops, verification.AgentInput{Name: "Adé Bello", Phone: phone, States: []string{"Lagos"}})
	if err != nil {
		t.Fatal(err)
	}
	if code, _, err = f.svc.IssueCode(ops, a.ID); err != nil {
		t.Fatal(err)
	}
	return phone, code
}

// wrongCode returns a code that is not code.
func wrongCode(code string, i int) string {
	c, _ := strconv.Atoi(code)
	return fmt.Sprintf("%06d", (c+1+i)%1_000_000)
}

func signInCode(t *testing.T, f fixture, phone, code, ip string) string {
	t.Helper()
	_, _, _, err := f.svc.SignIn(f.ctx, phone, code, ip)
	if err == nil {
		return "OK"
	}
	e, ok := apperr.As(err)
	if !ok {
		t.Fatal(err)
	}
	if e.Code == verification.CodeTooManyAttempts && e.Headers["Retry-After"] == "" {
		t.Fatalf("429 without Retry-After: %v", e)
	}
	return e.Code
}

// An outsider who knows the phone gets 5 guesses from an address and
// cannot destroy the agent's code; the agent signs in from elsewhere.
func TestAnOutsiderCannotBurnTheAgentsCode(t *testing.T) {
	t.Parallel()
	f := setup(t)
	phone, code := issue(t, f)
	for i := range 5 {
		if got := signInCode(t, f, phone, wrongCode(code, i), "198.51.100.7"); got != verification.CodeInvalidCode {
			t.Fatalf("wrong code %d: %s", i, got)
		}
	}
	for i := range 3 {
		if got := signInCode(t, f, phone, wrongCode(code, 10+i), "198.51.100.7"); got != verification.CodeTooManyAttempts {
			t.Fatalf("6th+ guess from the address: %s", got)
		}
	}
	if got := signInCode(t, f, phone, code, "198.51.100.7"); got != verification.CodeTooManyAttempts {
		t.Fatalf("the right code from the attacker's address: %s", got)
	}
	if got := signInCode(t, f, phone, code, "203.0.113.20"); got != "OK" {
		t.Fatalf("the agent from their own address: %s", got)
	}
}

// The code itself dies after 100 wrong codes in all (20 addresses' worth).
func TestTheCodeDiesAfterAHundredWrongCodes(t *testing.T) {
	t.Parallel()
	f := setup(t)
	phone, code := issue(t, f)
	for i := range 100 {
		ip := fmt.Sprintf("198.51.100.%d", i/5)
		if got := signInCode(t, f, phone, wrongCode(code, i), ip); got != verification.CodeInvalidCode {
			t.Fatalf("wrong code %d: %s", i, got)
		}
	}
	if got := signInCode(t, f, phone, code, "203.0.113.20"); got != verification.CodeInvalidCode {
		t.Fatalf("the right code after 100 wrong ones: %s", got)
	}
}

// One address sweeping phone numbers meets the address limit, and a
// success from it does not use the allowance up.
func TestOneAddressSweepingPhonesIsRefused(t *testing.T) {
	t.Parallel()
	f := setup(t)
	for i := range 19 {
		if got := signInCode(t, f, fmt.Sprintf("+2348099%06d", i), "123456", "198.51.100.9"); got != verification.CodeInvalidCode {
			t.Fatalf("unknown phone %d: %s", i, got)
		}
	}
	phone, code := issue(t, f)
	if got := signInCode(t, f, phone, code, "198.51.100.9"); got != "OK" {
		t.Fatalf("an agent behind the same address: %s", got)
	}
	if got := signInCode(t, f, "+2348099999999", "123456", "198.51.100.9"); got != verification.CodeInvalidCode {
		t.Fatalf("20th attempt: %s", got)
	}
	if got := signInCode(t, f, "not a phone at all", "1", "198.51.100.9"); got != verification.CodeTooManyAttempts {
		t.Fatalf("21st attempt: %s", got)
	}
}

// BenchmarkReserveSignIn is what an agent sign-in pays for its counters:
// one transaction with two upserts before the code is compared.
func BenchmarkReserveSignIn(b *testing.B) {
	pool, _ := pgtest.NewDB(b, migrations.Set(), outbox.Migration(), inbox.Migration(), pending.Migration())
	store := postgres.New(pool, "verification-events", events.Publisher{View: view.Renderer{BaseURL: "https://api.example.com"}}.Of)
	ctx := context.Background()
	i := 0
	for b.Loop() {
		i++
		ip := fmt.Sprintf("198.51.100.%d", i%200)
		limits := []verification.SignInLimit{{Key: "ip:" + ip, Max: 1 << 30}, {Key: fmt.Sprintf("pair:%d|%s", i%1000, ip), Max: 1 << 30}}
		if _, err := store.ReserveSignIn(ctx, limits, time.Now(), time.Minute); err != nil {
			b.Fatal(err)
		}
	}
}
