package keys

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// local is the in-process cache: short-lived entries, newest version wins.
type local struct {
	mu   sync.RWMutex
	keys map[string]localKey
	orgs map[string]localOrg
	ttl  time.Duration
}

type localKey struct {
	s       KeyState
	expires time.Time
}

type localOrg struct {
	s       OrgState
	expires time.Time
}

func newLocal(ttl time.Duration) *local {
	return &local{keys: map[string]localKey{}, orgs: map[string]localOrg{}, ttl: ttl}
}

func (l *local) get(hash string, now time.Time) (KeyState, OrgState, bool) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	k, ok := l.keys[hash]
	if !ok || now.After(k.expires) {
		return KeyState{}, OrgState{}, false
	}
	if k.s.Missing {
		return k.s, OrgState{}, true
	}
	o, ok := l.orgs[k.s.OrgID]
	if !ok || now.After(o.expires) {
		return KeyState{}, OrgState{}, false
	}
	return k.s, o.s, true
}

func (l *local) putKey(k KeyState, now time.Time, ttl time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if cur, ok := l.keys[k.Hash]; ok && cur.s.Version > k.Version && now.Before(cur.expires) {
		return
	}
	l.keys[k.Hash] = localKey{s: k, expires: now.Add(ttl)}
	if len(l.keys) > 100_000 {
		l.sweep(now)
	}
}

func (l *local) putOrg(o OrgState, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if cur, ok := l.orgs[o.ID]; ok && cur.s.Version > o.Version && now.Before(cur.expires) {
		return
	}
	l.orgs[o.ID] = localOrg{s: o, expires: now.Add(l.ttl)}
}

// sweep drops expired entries; called with the lock held.
func (l *local) sweep(now time.Time) {
	for h, k := range l.keys {
		if now.After(k.expires) {
			delete(l.keys, h)
		}
	}
}

// shared is the Redis cache. Values are "version|json"; a Lua script
// writes only when the new version is not older than the stored one.
type shared struct {
	rdb    redis.UniversalClient
	prefix string
}

var putNewer = redis.NewScript(`
local cur = redis.call('GET', KEYS[1])
if cur then
  local v = tonumber(string.match(cur, '^(-?%d+)|'))
  if v and v > tonumber(ARGV[1]) then return 0 end
end
redis.call('SET', KEYS[1], ARGV[1] .. '|' .. ARGV[2], 'PX', ARGV[3])
return 1`)

func (s *shared) keyKey(hash string) string { return s.prefix + "key:" + hash }
func (s *shared) orgKey(id string) string   { return s.prefix + "org:" + id }

func (s *shared) get(ctx context.Context, hash string) (KeyState, OrgState, bool, error) {
	var k KeyState
	ok, err := s.read(ctx, s.keyKey(hash), &k)
	if err != nil || !ok {
		return KeyState{}, OrgState{}, false, err
	}
	if k.Missing {
		return k, OrgState{}, true, nil
	}
	var o OrgState
	ok, err = s.read(ctx, s.orgKey(k.OrgID), &o)
	return k, o, ok, err
}

func (s *shared) read(ctx context.Context, key string, dst any) (bool, error) {
	v, err := s.rdb.Get(ctx, key).Result()
	if err == redis.Nil {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	_, body, ok := strings.Cut(v, "|")
	if !ok || json.Unmarshal([]byte(body), dst) != nil {
		return false, nil
	}
	return true, nil
}

func (s *shared) put(ctx context.Context, key string, version int64, v any, ttl time.Duration) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("keys: marshal: %w", err)
	}
	return putNewer.Run(ctx, s.rdb, []string{key}, strconv.FormatInt(version, 10), string(b), ttl.Milliseconds()).Err()
}
