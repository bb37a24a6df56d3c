package throttle

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/kycfield/kyc/pkg/eventually"
	"github.com/kycfield/kyc/pkg/redistest"
)

func newThrottle(t *testing.T, lim Limits) *Redis {
	t.Helper()
	rdb, prefix := redistest.New(t)
	return New(rdb, prefix, lim, slog.New(slog.DiscardHandler))
}

func reserveOK(t *testing.T, th *Redis, email, ip string) bool {
	t.Helper()
	wait, err := th.Reserve(context.Background(), email, ip)
	if err != nil {
		t.Fatal(err)
	}
	if wait < 0 || wait > th.lim.Window {
		t.Fatalf("wait %v outside (0, %v]", wait, th.lim.Window)
	}
	return wait == 0
}

// A burst of parallel attempts gets exactly the limit through: the count
// is taken before any password is compared.
func TestParallelBurstNeverExceedsThePairLimit(t *testing.T) {
	t.Parallel()
	th := newThrottle(t, DefaultLimits)
	var allowed, refused atomic.Int64
	var wg sync.WaitGroup
	for range 40 {
		wg.Go(func() {
			wait, err := th.Reserve(context.Background(), "staff@lender.ng", "198.51.100.7")
			switch {
			case err != nil:
				t.Error(err)
			case wait == 0:
				allowed.Add(1)
			case wait > 0 && wait <= DefaultLimits.Window:
				refused.Add(1)
			default:
				t.Errorf("wait %v", wait)
			}
		})
	}
	wg.Wait()
	if allowed.Load() != 5 || refused.Load() != 35 {
		t.Fatalf("allowed %d, refused %d; want 5 and 35", allowed.Load(), refused.Load())
	}
}

func TestAnotherAddressIsNotHeldUpByAnAttackersBurst(t *testing.T) {
	t.Parallel()
	th := newThrottle(t, DefaultLimits)
	for range 20 { // 5 counted, 15 refused without counting towards the email
		reserveOK(t, th, "staff@lender.ng", "198.51.100.7")
	}
	if !reserveOK(t, th, "staff@lender.ng", "203.0.113.50") {
		t.Fatal("a new address was refused after one attacker's burst")
	}
}

func TestTheEmailLimitRefusesOnlyAddressesTheAccountDoesNotKnow(t *testing.T) {
	t.Parallel()
	th := newThrottle(t, DefaultLimits)
	ctx := context.Background()
	const email, office = "staff@lender.ng", "203.0.113.10"
	if !reserveOK(t, th, email, office) {
		t.Fatal("first sign-in refused")
	}
	if err := th.Succeeded(ctx, email, office); err != nil {
		t.Fatal(err)
	}
	for a := range 2 { // two attackers fill the email's 10
		for range DefaultLimits.Pair {
			if !reserveOK(t, th, email, fmt.Sprintf("198.51.100.%d", a+1)) {
				t.Fatalf("attacker %d refused early", a)
			}
		}
	}
	if reserveOK(t, th, email, "198.51.100.99") {
		t.Fatal("a third unknown address was allowed past the email's limit")
	}
	for i := range 3 { // the office keeps working, success after success
		if !reserveOK(t, th, email, office) {
			t.Fatalf("the known office address was refused (sign-in %d)", i)
		}
		if err := th.Succeeded(ctx, email, office); err != nil {
			t.Fatal(err)
		}
	}
	if !reserveOK(t, th, "colleague@lender.ng", "198.51.100.99") {
		t.Fatal("another email was refused")
	}
}

func TestASuccessGivesItsAttemptBack(t *testing.T) {
	t.Parallel()
	th := newThrottle(t, DefaultLimits)
	ctx := context.Background()
	for range 4 {
		reserveOK(t, th, "staff@lender.ng", "203.0.113.10")
	}
	for round := range 3 {
		for i := range DefaultLimits.Pair {
			if !reserveOK(t, th, "staff@lender.ng", "203.0.113.10") {
				t.Fatalf("round %d attempt %d refused", round, i)
			}
			if err := th.Succeeded(ctx, "staff@lender.ng", "203.0.113.10"); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestOneAddressSprayingEmailsMeetsTheAddressLimit(t *testing.T) {
	t.Parallel()
	th := newThrottle(t, DefaultLimits)
	for i := range DefaultLimits.IP {
		if !reserveOK(t, th, fmt.Sprintf("user%d@lender.ng", i), "198.51.100.7") {
			t.Fatalf("attempt %d refused", i)
		}
	}
	if reserveOK(t, th, "another@lender.ng", "198.51.100.7") {
		t.Fatal("attempt past the address limit allowed")
	}
	if !reserveOK(t, th, "another@lender.ng", "198.51.100.8") {
		t.Fatal("another address refused")
	}
}

func TestTheWindowEnds(t *testing.T) {
	t.Parallel()
	lim := DefaultLimits
	lim.Window = 300 * time.Millisecond
	th := newThrottle(t, lim)
	for range lim.Pair {
		reserveOK(t, th, "staff@lender.ng", "198.51.100.7")
	}
	if reserveOK(t, th, "staff@lender.ng", "198.51.100.7") {
		t.Fatal("not refused")
	}
	eventually.True(t, 5*time.Second, "attempts allowed again after the window", func() bool {
		return reserveOK(t, th, "staff@lender.ng", "198.51.100.7")
	})
}

func TestRedisDownLetsTheAttemptThrough(t *testing.T) {
	t.Parallel()
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1})
	t.Cleanup(func() { _ = rdb.Close() })
	th := New(rdb, "down:", DefaultLimits, slog.New(slog.DiscardHandler))
	if wait, err := th.Reserve(context.Background(), "staff@lender.ng", "198.51.100.7"); wait != 0 || err != nil {
		t.Fatalf("got %v, %v", wait, err)
	}
	if err := th.Succeeded(context.Background(), "staff@lender.ng", "198.51.100.7"); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkReserve is the cost a log-in pays for the throttle: one script
// call to Redis before the password is compared.
func BenchmarkReserve(b *testing.B) {
	rdb, prefix := redistest.New(b)
	lim := DefaultLimits
	lim.Pair, lim.IP, lim.Email = 1<<30, 1<<30, 1<<30
	th := New(rdb, prefix, lim, slog.New(slog.DiscardHandler))
	ctx := context.Background()
	i := 0
	for b.Loop() {
		i++
		if _, err := th.Reserve(ctx, "staff@lender.ng", fmt.Sprintf("198.51.100.%d", i%200)); err != nil {
			b.Fatal(err)
		}
	}
}
