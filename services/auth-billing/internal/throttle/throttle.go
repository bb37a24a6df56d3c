// Package throttle limits dashboard log-in attempts with counters in
// Redis. An attempt is reserved (counted) before its password is
// compared, in one Lua script, so a burst of parallel requests can never
// get more comparisons than the limit; a successful attempt is given back.
//
// Three counters, each over a fixed window (15 minutes in production):
//
//   - the (email, client address) pair: 5 attempts. This is the back-off
//     an attacker at one address meets, and the only one a member of staff
//     at an address they have signed in from before can meet.
//   - the client address: 30 attempts across every email, against one
//     address spraying many accounts.
//   - the email: 10 attempts from every address together. It refuses only
//     addresses that have not signed in to this account in the last 30
//     days, and only until the window ends: a distributed attacker gets at
//     most 10 guesses per window, while the owner keeps signing in from
//     their usual addresses and a new address waits at most one window.
//
// docs/security.md gives the arithmetic of the trade-off.
package throttle

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// Limits are the counters' sizes and lifetimes.
type Limits struct {
	// Pair, IP and Email are the attempts allowed per Window for an
	// (email, address) pair, an address, and an email from addresses it
	// does not know.
	Pair, IP, Email int
	Window          time.Duration
	// KnownFor is how long a successful sign-in makes its address known
	// to the account; KnownMax bounds how many addresses one keeps.
	KnownFor time.Duration
	KnownMax int
}

// DefaultLimits are the production limits.
var DefaultLimits = Limits{Pair: 5, IP: 30, Email: 10, Window: 15 * time.Minute, KnownFor: 30 * 24 * time.Hour, KnownMax: 20}

// Redis implements account.Throttle.
type Redis struct {
	rdb    redis.UniversalClient
	prefix string
	lim    Limits
	log    *slog.Logger
	now    func() time.Time
}

// New returns a throttle keeping its counters under prefix.
func New(rdb redis.UniversalClient, prefix string, lim Limits, log *slog.Logger) *Redis {
	return &Redis{rdb: rdb, prefix: prefix + "login:", lim: lim, log: log, now: time.Now}
}

// reserve checks every counter that applies and, only when none is full,
// counts the attempt in all three (so a known address's failures still
// count towards the email's limit for unknown ones). A refused attempt is
// not counted: an attacker refused at the pair cannot push the email's
// counter up. Returns {0, 0} or {which counter, its remaining ms}.
//
// KEYS: pair, ip, email, known (sorted set: address -> last success, ms).
// ARGV: pair limit, ip limit, email limit, window ms, address, now ms,
// known-for ms.
var reserve = redis.NewScript(`
local known = redis.call('ZSCORE', KEYS[4], ARGV[5])
local isKnown = known and tonumber(known) > tonumber(ARGV[6]) - tonumber(ARGV[7])
for i = 1, 3 do
  if i < 3 or not isKnown then
    local c = tonumber(redis.call('GET', KEYS[i]) or '0')
    if c >= tonumber(ARGV[i]) then
      local ttl = redis.call('PTTL', KEYS[i])
      if ttl < 0 then ttl = tonumber(ARGV[4]) end
      return {i, ttl}
    end
  end
end
for i = 1, 3 do
  redis.call('INCR', KEYS[i])
  redis.call('PEXPIRE', KEYS[i], ARGV[4], 'NX')
end
return {0, 0}`)

// succeeded gives a successful attempt back: the pair starts afresh, the
// address and email counters lose the one attempt reserved (a success
// does not wipe the failures others made), and the address becomes known.
//
// KEYS: pair, ip, email, known. ARGV: address, now ms, known-for ms, max known.
var succeeded = redis.NewScript(`
redis.call('DEL', KEYS[1])
for i = 2, 3 do
  if tonumber(redis.call('GET', KEYS[i]) or '0') > 0 then redis.call('DECR', KEYS[i]) end
end
redis.call('ZADD', KEYS[4], ARGV[2], ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', tonumber(ARGV[2]) - tonumber(ARGV[3]))
redis.call('ZREMRANGEBYRANK', KEYS[4], 0, -tonumber(ARGV[4]) - 1)
redis.call('PEXPIRE', KEYS[4], ARGV[3])
return 0`)

// keys names the counters of an attempt. Emails are hashed so that Redis
// holds no addresses of people.
func (t *Redis) keys(email, ip string) []string {
	h := sha256.Sum256([]byte(email))
	e := hex.EncodeToString(h[:12])
	return []string{t.prefix + "pair:" + e + ":" + ip, t.prefix + "ip:" + ip, t.prefix + "email:" + e, t.prefix + "known:" + e}
}

// Reserve counts an attempt for email from ip before its password is
// compared; a positive wait refuses it. If Redis is down it lets the
// attempt through (bcrypt still slows guessing) and logs.
func (t *Redis) Reserve(ctx context.Context, email, ip string) (time.Duration, error) {
	now := t.now().UnixMilli()
	res, err := reserve.Run(ctx, t.rdb, t.keys(email, ip), t.lim.Pair, t.lim.IP, t.lim.Email,
		t.lim.Window.Milliseconds(), ip, now, t.lim.KnownFor.Milliseconds()).Int64Slice()
	if err != nil || len(res) != 2 {
		t.log.WarnContext(ctx, "login throttle unavailable; allowing attempt", "err", err)
		return 0, nil
	}
	if res[0] == 0 {
		return 0, nil
	}
	return time.Duration(res[1]) * time.Millisecond, nil
}

// Succeeded gives back the attempt of a successful log-in and remembers
// its address for the account.
func (t *Redis) Succeeded(ctx context.Context, email, ip string) error {
	err := succeeded.Run(ctx, t.rdb, t.keys(email, ip), ip, strconv.FormatInt(t.now().UnixMilli(), 10),
		t.lim.KnownFor.Milliseconds(), t.lim.KnownMax).Err()
	if err != nil {
		t.log.WarnContext(ctx, "login throttle unavailable; success not recorded", "err", err)
	}
	return nil
}
