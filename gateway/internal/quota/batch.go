package quota

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// Batching limits: a pipeline carries at most maxBatch scripts, and a batch
// that Redis has not answered within batchTimeout falls back to local
// counting (its callers are still served).
const (
	maxBatch     = 256
	batchTimeout = time.Second
	counterTTL   = 2 * 24 * 3600 // seconds: a day's counter is dropped the day after
)

// call is one request waiting for its count.
type call struct {
	key     string
	limit   int
	allowed bool
	count   int64
	err     error
	done    chan struct{}
	// then, if set, runs once the result is in (a count nobody waits
	// for: CountUncapped, whose done is nil).
	then func(*call)
}

// uncapped reports whether c is a count nobody waits for, one of those
// send adds up per key.
func (c *call) uncapped() bool { return c.then != nil && c.limit <= 0 }

// batcher queues calls while a pipeline is in flight. There is no
// background goroutine: the first capped caller to find nothing in
// flight sends the queue itself, and hands any calls that arrived
// meanwhile to a new flusher, so a quiet gateway pays one plain round
// trip per capped request; uncapped counts wait for the next pipeline, or
// for a timer (uncappedLinger).
type batcher struct {
	mu       sync.Mutex
	queue    []*call
	inFlight bool
	// armed is set while a timer will send the queued uncapped counts
	// (CountUncapped lingers them).
	armed bool
}

// takeShared runs the take script for key in the next pipeline.
func (l *Limiter) takeShared(ctx context.Context, key string, limit int) (bool, int64, error) {
	c := &call{key: key, limit: limit, done: make(chan struct{})}
	b := &l.batch
	b.mu.Lock()
	b.queue = append(b.queue, c)
	lead := !b.inFlight
	b.inFlight = true
	b.mu.Unlock()
	if lead {
		l.flush()
	}
	select {
	case <-c.done:
		return c.allowed, c.count, c.err
	case <-ctx.Done():
		return false, 0, ctx.Err()
	}
}

// flush sends the queued calls and, if more arrived in the meantime, lets a
// new goroutine send those, so that this caller's request is not held up.
func (l *Limiter) flush() {
	b := &l.batch
	b.mu.Lock()
	n := min(len(b.queue), maxBatch)
	calls := b.queue[:n:n]
	b.queue = b.queue[n:]
	b.mu.Unlock()

	l.send(calls)

	b.mu.Lock()
	more := len(b.queue) > 0
	b.inFlight = more
	b.mu.Unlock()
	if more {
		go l.flush()
	}
}

// send runs the batch in a single pipeline: one take script per capped
// call (each atomic on its own, run by Redis in order), and one count
// script per key for the uncapped calls (CountUncapped), which add their
// number at once: n counts by one script store exactly what n scripts
// of one would, and each of those callers still hears a distinct count.
func (l *Limiter) send(calls []*call) {
	ctx, cancel := context.WithTimeout(context.Background(), batchTimeout)
	defer cancel()
	cmds, err := l.pipeline(ctx, calls)
	if redis.HasErrorPrefix(err, "NOSCRIPT") {
		// A restarted or flushed Redis lost the cached scripts: load them
		// once, and send again what they refused. Only that: with two
		// scripts, Redis may have known one (another instance loaded it),
		// and its commands have counted.
		if err = take.Load(ctx, l.rdb).Err(); err == nil {
			err = countN.Load(ctx, l.rdb).Err()
		}
		if err == nil {
			var again []int
			for i, s := range cmds {
				if redis.HasErrorPrefix(s.cmd.Err(), "NOSCRIPT") {
					again = append(again, i)
				}
			}
			retry := make([]*call, len(again))
			for j, i := range again {
				retry[j] = calls[i]
			}
			resent, _ := l.pipeline(ctx, retry)
			for j, i := range again {
				cmds[i] = resent[j]
			}
		}
	}
	for i, c := range calls {
		cmd := cmds[i]
		if cmd.n > 0 { // uncapped calls of one key share a command
			n, err := cmd.cmd.Int64()
			cmd.n--
			if c.err = err; err == nil {
				c.allowed, c.count = true, n-int64(cmd.n)
			}
		} else {
			var res []int64
			if res, c.err = cmd.cmd.Int64Slice(); c.err == nil && len(res) != 2 {
				c.err = errors.New("quota: unexpected script reply")
			}
			if c.err == nil {
				c.allowed, c.count = res[0] == 1, res[1]
			}
		}
		if c.done != nil {
			close(c.done)
		}
		if c.then != nil {
			c.then(c)
			l.pending.done()
		}
	}
}

// countN adds ARGV[1] uncapped requests to a day's counter and returns
// the new count.
var countN = redis.NewScript(`
local n = tonumber(ARGV[1])
local c = redis.call('INCRBY', KEYS[1], n)
if c == n then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
return c`)

// sent is a call's command; n > 0 marks the uncapped calls of one key
// (they share the command, and each takes one of its n counts, in
// order).
type sent struct {
	cmd *redis.Cmd
	n   int
}

// pipeline sends the batch; each returned command carries its own result
// or error, and the error is the first of them (as Exec reports it).
func (l *Limiter) pipeline(ctx context.Context, calls []*call) ([]*sent, error) {
	pipe := l.rdb.Pipeline()
	cmds := make([]*sent, len(calls))
	var byKey map[string]*sent
	for i, c := range calls {
		if !c.uncapped() {
			continue
		}
		if s := byKey[c.key]; s != nil {
			s.n++
			cmds[i] = s
			continue
		}
		if byKey == nil {
			byKey = map[string]*sent{}
		}
		s := &sent{n: 1}
		byKey[c.key], cmds[i] = s, s
	}
	// The uncapped counts go first, so that a capped take in the same
	// pipeline (an organization whose plan just gained a cap) counts
	// every request queued before it.
	for i, c := range calls {
		if s := cmds[i]; s != nil && s.cmd == nil {
			s.cmd = countN.EvalSha(ctx, pipe, []string{c.key}, s.n, counterTTL)
		}
	}
	for i, c := range calls {
		if cmds[i] == nil {
			cmds[i] = &sent{cmd: take.EvalSha(ctx, pipe, []string{c.key}, c.limit, counterTTL)}
		}
	}
	_, err := pipe.Exec(ctx)
	return cmds, err
}
