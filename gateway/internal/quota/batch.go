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
	// for: CountUncapped).
	then func(*call)
}

// batcher queues calls while a pipeline is in flight. There is no
// background goroutine: the first caller to find nothing in flight sends
// the queue itself, and hands any calls that arrived meanwhile to a new
// flusher, so a quiet gateway pays one plain round trip per request.
type batcher struct {
	mu       sync.Mutex
	queue    []*call
	inFlight bool
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

// send runs one take script per call in a single pipeline; each script is
// atomic on its own, and Redis runs them in order.
func (l *Limiter) send(calls []*call) {
	ctx, cancel := context.WithTimeout(context.Background(), batchTimeout)
	defer cancel()
	cmds, err := l.pipeline(ctx, calls)
	if redis.HasErrorPrefix(err, "NOSCRIPT") {
		// A restarted or flushed Redis lost the cached script: load it once.
		if err = take.Load(ctx, l.rdb).Err(); err == nil {
			cmds, _ = l.pipeline(ctx, calls)
		}
	}
	for i, c := range calls {
		var res []int64
		if res, c.err = cmds[i].Int64Slice(); c.err == nil && len(res) != 2 {
			c.err = errors.New("quota: unexpected script reply")
		}
		if c.err == nil {
			c.allowed, c.count = res[0] == 1, res[1]
		}
		close(c.done)
		if c.then != nil {
			c.then(c)
			l.pending.done()
		}
	}
}

// pipeline sends the batch; each returned command carries its own result
// or error, and the error is the first of them (as Exec reports it).
func (l *Limiter) pipeline(ctx context.Context, calls []*call) ([]*redis.Cmd, error) {
	pipe := l.rdb.Pipeline()
	cmds := make([]*redis.Cmd, len(calls))
	for i, c := range calls {
		cmds[i] = take.EvalSha(ctx, pipe, []string{c.key}, c.limit, counterTTL)
	}
	_, err := pipe.Exec(ctx)
	return cmds, err
}
