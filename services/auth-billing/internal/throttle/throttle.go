// Package throttle limits failed dashboard log-ins with counters in Redis:
// after Limit failures within Window a key (an email, a client address)
// is blocked until the window ends.
package throttle

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// Redis implements account.Throttle.
type Redis struct {
	rdb    redis.UniversalClient
	prefix string
	window time.Duration
	limits map[string]int64 // by key kind ("email", "ip")
	log    *slog.Logger
}

// New returns a throttle: 5 failures per email and 30 per client address
// within window.
func New(rdb redis.UniversalClient, prefix string, window time.Duration, log *slog.Logger) *Redis {
	return &Redis{rdb: rdb, prefix: prefix + "login:", window: window, limits: map[string]int64{"email": 5, "ip": 30}, log: log}
}

func (t *Redis) limit(key string) int64 {
	kind, _, _ := strings.Cut(key, ":")
	if l, ok := t.limits[kind]; ok {
		return l
	}
	return 5
}

// Blocked returns the longest remaining block among keys. If Redis is
// down it lets the attempt through (bcrypt still slows guessing) and logs.
func (t *Redis) Blocked(ctx context.Context, keys ...string) (time.Duration, error) {
	var wait time.Duration
	for _, k := range keys {
		n, err := t.rdb.Get(ctx, t.prefix+k).Int64()
		if err == redis.Nil {
			continue
		}
		if err != nil {
			t.log.WarnContext(ctx, "login throttle unavailable; allowing attempt", "err", err)
			return 0, nil
		}
		if n >= t.limit(k) {
			ttl, err := t.rdb.TTL(ctx, t.prefix+k).Result()
			if err == nil && ttl > wait {
				wait = ttl
			}
		}
	}
	return wait, nil
}

// Failed counts a failure against every key.
func (t *Redis) Failed(ctx context.Context, keys ...string) error {
	pipe := t.rdb.Pipeline()
	for _, k := range keys {
		pipe.Incr(ctx, t.prefix+k)
		pipe.ExpireNX(ctx, t.prefix+k, t.window)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.log.WarnContext(ctx, "login throttle unavailable; failure not counted", "err", err)
	}
	return nil
}

// Reset clears keys after a successful log-in.
func (t *Redis) Reset(ctx context.Context, keys ...string) error {
	for _, k := range keys {
		t.rdb.Del(ctx, t.prefix+k)
	}
	return nil
}
