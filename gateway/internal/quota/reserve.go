package quota

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// A bulk import takes one request from the quota for each customer it
// will create, all at once when it is started (Reserve), so that a file
// larger than what is left of the day is refused before anything is
// created; what a start did not use is given back (Release).

// reserve takes n at once, or nothing when that would pass the limit.
var reserve = redis.NewScript(`
local limit = tonumber(ARGV[1])
local n = tonumber(ARGV[3])
local c = tonumber(redis.call('GET', KEYS[1]) or '0')
if limit > 0 and c + n > limit then return {0, c} end
c = redis.call('INCRBY', KEYS[1], n)
if c == n then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
return {1, c}`)

// Reserve takes n requests of orgID's day against limit, all or none.
// With Redis down the reservation is allowed (as single requests are,
// counted locally) and reported Degraded.
func (l *Limiter) Reserve(ctx context.Context, orgID string, limit, n int) Decision {
	now := l.now().UTC()
	midnight := time.Date(now.Year(), now.Month(), now.Day()+1, 0, 0, 0, 0, time.UTC)
	d := Decision{Limit: limit, Reset: midnight.Sub(now)}
	res, err := reserve.Run(ctx, l.rdb, []string{l.Key(orgID, now)}, limit, counterTTL, n).Int64Slice()
	if err != nil || len(res) != 2 {
		l.fallbackUsed.Add(ctx, 1)
		l.log.WarnContext(ctx, "quota store unavailable; import reservation allowed without counting", "err", err)
		d.Allowed, d.Degraded = true, true
		return d
	}
	d.Allowed, d.Count = res[0] == 1, res[1]
	if limit > 0 {
		d.Remaining = max(int64(limit)-d.Count, 0)
	}
	if !d.Allowed {
		l.rejected.Add(ctx, 1)
	}
	return d
}

// Release gives back n requests a reservation did not use, on the day it
// was taken.
func (l *Limiter) Release(ctx context.Context, orgID string, n int, day time.Time) error {
	return l.rdb.DecrBy(ctx, l.Key(orgID, day), int64(n)).Err()
}
