package keys

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/kycfield/kyc/gateway/internal/redisguard"
	"github.com/kycfield/kyc/pkg/apikey"
	"github.com/kycfield/kyc/pkg/event"
)

// Options tune the caches.
type Options struct {
	LocalTTL    time.Duration // in-process entries
	SharedTTL   time.Duration // Redis entries
	NegativeTTL time.Duration // "no such key" entries
}

// maxFills bounds the Redis cache writes in flight; beyond it a fill is
// skipped, which only costs a later miss.
const maxFills = 64

// Resolver authenticates secrets through the caches and the source.
type Resolver struct {
	local  *local
	shared *shared
	src    Source
	opt    Options
	log    *slog.Logger
	now    func() time.Time
	lookup metric.Int64Counter
	fills  chan struct{} // one token per cache write in flight
	filled sync.WaitGroup
}

// NewResolver returns a Resolver.
func NewResolver(rdb redis.UniversalClient, prefix string, src Source, opt Options, log *slog.Logger, meter metric.Meter) *Resolver {
	c, _ := meter.Int64Counter("kyc_gateway_key_lookups_total", metric.WithDescription("API key lookups by cache layer"))
	return &Resolver{
		local:  newLocal(opt.LocalTTL),
		shared: &shared{rdb: rdb, prefix: prefix},
		src:    src, opt: opt, log: log, now: time.Now, lookup: c,
		fills: make(chan struct{}, maxFills),
	}
}

// Resolve authenticates a secret.
func (r *Resolver) Resolve(ctx context.Context, secret string) (Identity, error) {
	env, ok := apikey.EnvOf(secret)
	if !ok || len(secret) > 200 {
		return Identity{}, ErrInvalid
	}
	hash := apikey.HashHex(secret)
	now := r.now()
	k, o, found := r.local.get(hash, now)
	layer := "local"
	if !found {
		var err error
		k, o, found, err = r.shared.get(ctx, hash)
		layer = "redis"
		if err != nil && !errors.Is(err, redisguard.ErrDown) { // the guard reports outages once
			r.log.WarnContext(ctx, "redis key cache unavailable; asking auth-billing", "err", err)
		}
		if found {
			r.remember(k, o, now)
		}
	}
	if !found {
		layer = "source"
		var err error
		k, o, err = r.src.Resolve(ctx, hash)
		switch {
		case errors.Is(err, ErrNotFound):
			k = KeyState{Hash: hash, Missing: true}
			r.store(ctx, k, OrgState{})
		case err != nil:
			r.lookup.Add(ctx, 1, lookupLayer["error"])
			return Identity{}, ErrUnavailable
		default:
			r.store(ctx, k, o)
		}
	}
	r.lookup.Add(ctx, 1, lookupLayer[layer])
	if !k.Usable(now) || k.Env != env {
		return Identity{}, ErrInvalid
	}
	return Identity{Key: k, Org: o}, nil
}

func (r *Resolver) remember(k KeyState, o OrgState, now time.Time) {
	ttl := r.opt.LocalTTL
	if k.Missing {
		ttl = min(ttl, r.opt.NegativeTTL)
	} else {
		r.local.putOrg(o, now)
	}
	r.local.putKey(k, now, ttl)
}

// lookupLayer holds the metric attribute set of each lookup outcome, built
// once instead of on every request.
var lookupLayer = func() map[string]metric.AddOption {
	m := map[string]metric.AddOption{}
	for _, l := range []string{"local", "redis", "source", "error"} {
		m[l] = metric.WithAttributeSet(attribute.NewSet(attribute.String("layer", l)))
	}
	return m
}()

// store writes a state fetched from the source to the local cache, and
// to Redis in the background: the request already has what it needs, and
// a slow Redis must not hold it up. Versions make a late write harmless.
func (r *Resolver) store(ctx context.Context, k KeyState, o OrgState) {
	r.remember(k, o, r.now())
	select {
	case r.fills <- struct{}{}:
	default:
		return
	}
	r.filled.Add(1)
	go func() {
		defer func() { <-r.fills; r.filled.Done() }()
		r.fill(context.WithoutCancel(ctx), k, o)
	}()
}

// fill writes a state fetched from the source to Redis.
func (r *Resolver) fill(ctx context.Context, k KeyState, o OrgState) {
	ttl := r.opt.SharedTTL
	if k.Missing {
		ttl = r.opt.NegativeTTL
	}
	if r.share(ctx, r.shared.keyKey(k.Hash), k.Version, k, ttl) && !k.Missing {
		r.share(ctx, r.shared.orgKey(o.ID), o.Version, o, r.opt.SharedTTL)
	}
}

// share writes one entry to Redis; a failure only costs a later miss.
func (r *Resolver) share(ctx context.Context, key string, version int64, v any, ttl time.Duration) bool {
	if err := r.shared.put(ctx, key, version, v, ttl); err != nil {
		if !errors.Is(err, redisguard.ErrDown) {
			r.log.WarnContext(ctx, "redis key cache write failed", "key", key, "err", err)
		}
		return false
	}
	return true
}

// Apply updates both caches from an auth-billing event, so that a
// revoked, rolled or downgraded key takes effect at once everywhere.
func (r *Resolver) Apply(ctx context.Context, e event.Event) {
	now := r.now()
	switch e.Type {
	case apikey.EventKeyCreated, apikey.EventKeyChanged:
		var k KeyState
		if json.Unmarshal(e.Data, &k) != nil || k.Hash == "" {
			return
		}
		r.local.putKey(k, now, r.opt.LocalTTL)
		r.share(ctx, r.shared.keyKey(k.Hash), k.Version, k, r.opt.SharedTTL)
	case apikey.EventOrgCreated, apikey.EventPlanChanged:
		var o OrgState
		if json.Unmarshal(e.Data, &o) != nil || o.ID == "" {
			return
		}
		r.local.putOrg(o, now)
		r.share(ctx, r.shared.orgKey(o.ID), o.Version, o, r.opt.SharedTTL)
	}
}
