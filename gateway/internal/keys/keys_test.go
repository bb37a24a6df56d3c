package keys

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"go.opentelemetry.io/otel/metric/noop"

	"github.com/kycfield/kyc/pkg/apikey"
	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/pkg/redistest"
)

type source struct {
	calls atomic.Int32
	key   KeyState
	org   OrgState
	err   error
}

func (s *source) Resolve(_ context.Context, hash string) (KeyState, OrgState, error) {
	s.calls.Add(1)
	if s.err != nil {
		return KeyState{}, OrgState{}, s.err
	}
	if hash != s.key.Hash {
		return KeyState{}, OrgState{}, ErrNotFound
	}
	return s.key, s.org, nil
}

const secret = "mk_test_0123456789abcdefghijklmnopqrstuv"

func setup(t *testing.T) (*Resolver, *source, *Resolver) {
	rdb, prefix := redistest.New(t)
	src := &source{key: KeyState{ID: "key_1", Hash: apikey.HashHex(secret), OrgID: "org_1", Env: "test", Scopes: []string{"kyc:read"}, Version: 1},
		org: OrgState{ID: "org_1", Plan: Plan{ID: "growth", DailyRequests: 10000, LiveAccess: true}, Version: 1}}
	opt := Options{LocalTTL: time.Minute, SharedTTL: time.Hour, NegativeTTL: time.Minute}
	m := noop.NewMeterProvider().Meter("")
	r, other := NewResolver(rdb, prefix, src, opt, logging.Discard(), m), NewResolver(rdb, prefix, src, opt, logging.Discard(), m)
	t.Cleanup(func() { r.filled.Wait(); other.filled.Wait() }) // before redistest deletes the keys
	return r, src, other
}

func TestCachesSpareTheSource(t *testing.T) {
	r, src, other := setup(t)
	for range 5 {
		if _, err := r.Resolve(context.Background(), secret); err != nil {
			t.Fatal(err)
		}
	}
	r.filled.Wait()                                                        // Redis is filled in the background
	if _, err := other.Resolve(context.Background(), secret); err != nil { // another instance: from Redis
		t.Fatal(err)
	}
	if n := src.calls.Load(); n != 1 {
		t.Fatalf("source called %d times", n)
	}
	for range 3 {
		if _, err := r.Resolve(context.Background(), "mk_test_unknown"); !errors.Is(err, ErrInvalid) {
			t.Fatal(err)
		}
	}
	if n := src.calls.Load(); n != 2 {
		t.Fatalf("unknown keys not negatively cached: %d calls", n)
	}
	if _, err := r.Resolve(context.Background(), "sk_live_nope"); !errors.Is(err, ErrInvalid) {
		t.Fatal("foreign prefix")
	}
}

func TestNewerStateWinsOverStaleFills(t *testing.T) {
	r, src, other := setup(t)
	ctx := context.Background()
	if _, err := r.Resolve(ctx, secret); err != nil {
		t.Fatal(err)
	}
	revoked := src.key
	revoked.Revoked, revoked.Version = true, 2
	data, _ := json.Marshal(revoked)
	r.Apply(ctx, event.Event{Type: "apikey.updated", Data: data})
	if _, err := r.Resolve(ctx, secret); !errors.Is(err, ErrInvalid) {
		t.Fatal("revocation not applied locally")
	}
	// A slow instance that read version 1 before the revocation writes it
	// late: the shared cache keeps version 2.
	other.store(ctx, src.key, src.org)
	other.filled.Wait()
	var k KeyState
	ok, err := other.shared.read(ctx, other.shared.keyKey(src.key.Hash), &k)
	if err != nil || !ok || !k.Revoked || k.Version != 2 {
		t.Fatalf("stale fill overwrote the revocation: %+v %v", k, err)
	}
	// Plan changes apply the same way.
	down := OrgState{ID: "org_1", Plan: Plan{ID: "developer", DailyRequests: 100}, Version: 2}
	data, _ = json.Marshal(down)
	other.Apply(ctx, event.Event{Type: "organization.plan_changed", Data: data})
	other.local.putOrg(src.org, time.Now()) // stale local write is ignored too
	_, o, found := other.local.get(src.key.Hash, time.Now())
	if !found || o.Plan.ID != "developer" {
		t.Fatalf("local org: %+v", o)
	}
}

func TestSourceDownIsUnavailableNotInvalid(t *testing.T) {
	r, src, _ := setup(t)
	src.err = errors.New("connection refused")
	if _, err := r.Resolve(context.Background(), secret); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("got %v", err)
	}
}
