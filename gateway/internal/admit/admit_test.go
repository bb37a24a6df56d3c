package admit

import (
	"context"
	"net/http"
	"testing"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/envelope"
)

func newAdmitter(t *testing.T, cfg Config) (*Admitter, func() int64) {
	t.Helper()
	reader := sdkmetric.NewManualReader()
	a := New(cfg, sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)).Meter("gateway"))
	shed := func() int64 {
		var rm metricdata.ResourceMetrics
		if err := reader.Collect(context.Background(), &rm); err != nil {
			t.Fatal(err)
		}
		var n int64
		for _, sm := range rm.ScopeMetrics {
			for _, m := range sm.Metrics {
				if s, ok := m.Data.(metricdata.Sum[int64]); ok && m.Name == "kyc_gateway_shed_total" {
					for _, dp := range s.DataPoints {
						n += dp.Value
					}
				}
			}
		}
		return n
	}
	return a, shed
}

// fill takes slots for org without waiting (its context has ended, so a
// request that finds none free is refused at once) until one is refused
// (or max are held) and returns the release functions of those it got.
func fill(t *testing.T, a *Admitter, org string, max int) []func() {
	t.Helper()
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	var held []func()
	for range max {
		release, err := a.Acquire(ended, org)
		if err != nil {
			break
		}
		held = append(held, release)
	}
	return held
}

// TestShares: how many requests one organization, then a second one,
// can hold at once, for each way the limits are configured.
func TestShares(t *testing.T) {
	for _, c := range []struct {
		name         string
		cfg          Config
		first, other int // slots the bursting organization gets, then another one
	}{
		{"no limit admits everything", Config{}, 100, 100},
		{"default share is three quarters", Config{Limit: 8}, 6, 2},
		{"a share of at least one", Config{Limit: 1}, 1, 0},
		{"explicit share", Config{Limit: 10, PerOrg: 3}, 3, 3},
		{"share capped at the limit", Config{Limit: 4, PerOrg: 10}, 4, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, shed := newAdmitter(t, c.cfg)
			first := fill(t, a, "org_bank", 100)
			other := fill(t, a, "org_other", 100)
			if len(first) != c.first || len(other) != c.other {
				t.Fatalf("the bursting organization got %d slots and the other %d, want %d and %d", len(first), len(other), c.first, c.other)
			}
			wantShed := int64(0)
			if c.cfg.Limit > 0 {
				wantShed = 2 // each fill ends on one refusal
			}
			if got := shed(); got != wantShed {
				t.Errorf("kyc_gateway_shed_total = %d, want %d", got, wantShed)
			}
			for _, release := range append(first, other...) {
				release()
			}
			// With every slot back, the other organization gets a full share.
			if again := fill(t, a, "org_other", 100); len(again) != c.first {
				t.Errorf("after every release the other organization got %d slots, want %d", len(again), c.first)
			}
		})
	}
}

// TestRefusedWhileHeldAdmittedWhenFreed: with every slot held, a request
// is answered 503 SERVICE_OVERLOADED with Retry-After in the standard
// envelope; a request waiting for a slot gets the first one given back.
func TestRefusedWhileHeldAdmittedWhenFreed(t *testing.T) {
	a, shed := newAdmitter(t, Config{Limit: 2, PerOrg: 2, Wait: time.Hour, RetryAfter: 1500 * time.Millisecond})
	held := fill(t, a, "org_bank", 2)
	if len(held) != 2 {
		t.Fatalf("held %d slots, want 2", len(held))
	}

	// A request whose wait is over (its deadline passed while the API is
	// full) is refused.
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := a.Acquire(gone, "org_other")
	e, ok := apperr.As(err)
	if !ok || e.Code != CodeOverloaded || envelope.Status(e.Kind) != http.StatusServiceUnavailable {
		t.Fatalf("over the limit: %v, want 503 %s", err, CodeOverloaded)
	}
	if got := e.Headers["Retry-After"]; got != "2" {
		t.Errorf("Retry-After %q, want 2 (1.5 s rounded up)", got)
	}
	if got := shed(); got != 1 {
		t.Errorf("kyc_gateway_shed_total = %d, want 1", got)
	}

	// A request waiting for a slot is admitted once one is freed.
	admitted := make(chan func())
	go func() {
		release, err := a.Acquire(context.Background(), "org_other")
		if err != nil {
			t.Error(err)
			close(admitted)
			return
		}
		admitted <- release
	}()
	held[0]()
	release := <-admitted
	if release == nil {
		t.Fatal("the waiting request was refused after a slot was freed")
	}
	release()
	held[1]()
	if got := shed(); got != 1 {
		t.Errorf("kyc_gateway_shed_total = %d after the admission, want still 1", got)
	}
	// Every slot is back and no organization's share is left behind.
	if n := len(fill(t, a, "org_third", 10)); n != 2 {
		t.Errorf("after every release %d slots could be taken, want 2", n)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.orgs) != 1 {
		t.Errorf("%d organizations' shares kept, want only the one holding slots", len(a.orgs))
	}
}

// TestWaitNoneShedsAtOnce: with no wait configured, a request over the
// limit is refused without waiting.
func TestWaitNoneShedsAtOnce(t *testing.T) {
	a, _ := newAdmitter(t, Config{Limit: 1})
	release, err := a.Acquire(context.Background(), "org_bank")
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if _, err := a.Acquire(context.Background(), "org_other"); !apperr.IsCode(err, CodeOverloaded) {
		t.Fatalf("second request: %v, want %s", err, CodeOverloaded)
	}
}

// TestRetryAfterGrowsWithTheOverload: a shed request is told to stay away
// about as many seconds as the demand refused lately would take at the
// rate requests are being admitted, never less than the configured
// least nor more than 30 s, and the overload of a while ago is forgotten.
func TestRetryAfterGrowsWithTheOverload(t *testing.T) {
	start := time.Date(2026, 11, 26, 21, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name                  string
		least                 int64
		prevAdmits, prevSheds int // in the second before
		admits, sheds         int // in this second, before the shed asked about
		gap                   time.Duration
		want                  int64
	}{
		{"first refusal: the least", 1, 0, 0, 32, 0, 0, 1},
		{"configured least holds", 3, 0, 0, 32, 0, 0, 3},
		{"as many refused as admitted: 1 s", 1, 0, 0, 10, 9, 0, 1},
		{"four refused for each admitted: 4 s", 1, 0, 0, 10, 39, 0, 4},
		{"the second before counts too", 1, 50, 150, 50, 49, 0, 2},
		{"nothing admitted: capped", 1, 0, 0, 0, 500, 0, 30},
		{"ten times over capacity for long: capped", 1, 20, 2000, 20, 2000, 0, 30},
		{"overload two seconds ago is forgotten", 1, 0, 0, 10, 390, 2500 * time.Millisecond, 1},
		{"overload one window ago still counts", 1, 0, 0, 10, 39, 1500 * time.Millisecond, 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			now := start
			p := pace{least: c.least, now: func() time.Time { return now }}
			for range c.prevAdmits {
				p.admitted()
			}
			for range c.prevSheds {
				p.shed()
			}
			now = now.Add(time.Second)
			for range c.admits {
				p.admitted()
			}
			for range c.sheds {
				p.shed()
			}
			now = now.Add(c.gap)
			if got := p.shed(); got != c.want {
				t.Errorf("Retry-After %d s, want %d", got, c.want)
			}
		})
	}
}
