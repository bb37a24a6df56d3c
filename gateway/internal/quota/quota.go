// Package quota counts each organization's requests per UTC day in Redis
// with one atomic script per request, so the limit is exact however many
// gateway instances and parallel requests there are. Concurrent requests
// share round trips: their scripts go to Redis together in one pipeline
// (group commit), which keeps each count atomic but spares the syscalls and
// the Redis wake-ups that dominate the gateway's cost under load. If Redis
// is down the request is still served: a per-instance counter takes over,
// with a warning and a metric, until Redis answers again.
package quota

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel/metric"
)

// Decision is the outcome for one request.
type Decision struct {
	Allowed   bool
	Limit     int // 0: no cap
	Count     int64
	Remaining int64
	// Reset is the time left until the next UTC midnight.
	Reset time.Duration
	// Degraded is set when the count came from the local fallback.
	Degraded bool
}

// Limiter implements the daily quota.
type Limiter struct {
	rdb                    redis.UniversalClient
	prefix                 string
	log                    *slog.Logger
	now                    func() time.Time
	mu                     sync.Mutex
	fallback               map[string]int64
	batch                  batcher
	pending                inflight // CountUncapped's counts on their way
	lastWarn               time.Time
	fallbackUsed, rejected metric.Int64Counter
}

// New returns a Limiter storing counters under prefix.
func New(rdb redis.UniversalClient, prefix string, log *slog.Logger, meter metric.Meter) *Limiter {
	fb, _ := meter.Int64Counter("kyc_gateway_quota_fallback_total", metric.WithDescription("Requests counted locally because Redis was unavailable"))
	rj, _ := meter.Int64Counter("kyc_gateway_quota_rejections_total", metric.WithDescription("Requests refused with QUOTA_EXCEEDED"))
	return &Limiter{rdb: rdb, prefix: prefix, log: log, now: time.Now, fallback: map[string]int64{}, fallbackUsed: fb, rejected: rj}
}

// take counts one request unless the limit is reached (limit 0 counts
// without a cap). Returns {allowed, count}.
var take = redis.NewScript(`
local limit = tonumber(ARGV[1])
local c = tonumber(redis.call('GET', KEYS[1]) or '0')
if limit > 0 and c >= limit then return {0, c} end
c = redis.call('INCR', KEYS[1])
if c == 1 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
return {1, c}`)

// Key returns the counter key of an organization's day.
func (l *Limiter) Key(orgID string, day time.Time) string {
	return l.prefix + "quota:" + orgID + ":" + day.UTC().Format("20060102")
}

// Take counts one request of orgID against limit.
func (l *Limiter) Take(ctx context.Context, orgID string, limit int) Decision {
	now := l.now().UTC()
	midnight := time.Date(now.Year(), now.Month(), now.Day()+1, 0, 0, 0, 0, time.UTC)
	d := Decision{Limit: limit, Reset: midnight.Sub(now)}
	key := l.Key(orgID, now)
	allowed, count, err := l.takeShared(ctx, key, limit)
	if err != nil {
		d.Degraded = true
		d.Allowed, d.Count = l.takeLocal(ctx, key, limit, err)
	} else {
		d.Allowed, d.Count = allowed, count
	}
	if limit > 0 {
		d.Remaining = max(int64(limit)-d.Count, 0)
	}
	if !d.Allowed {
		l.rejected.Add(ctx, 1)
	}
	return d
}

func (l *Limiter) takeLocal(ctx context.Context, key string, limit int, cause error) (bool, int64) {
	l.fallbackUsed.Add(ctx, 1)
	l.mu.Lock()
	defer l.mu.Unlock()
	if now := l.now(); now.Sub(l.lastWarn) > 10*time.Second {
		l.lastWarn = now
		l.log.WarnContext(ctx, "quota store unavailable; counting requests locally on this instance", "err", cause)
	}
	c := l.fallback[key]
	if limit > 0 && c >= int64(limit) {
		return false, c
	}
	l.fallback[key] = c + 1
	if len(l.fallback) > 100_000 {
		l.fallback = map[string]int64{} // bounded memory; a day's keys roll over anyway
	}
	return true, c + 1
}

// Count returns the stored count of an organization's day.
func (l *Limiter) Count(ctx context.Context, orgID string, day time.Time) (int64, error) {
	n, err := l.rdb.Get(ctx, l.Key(orgID, day)).Int64()
	if err == redis.Nil {
		return 0, nil
	}
	return n, err
}
