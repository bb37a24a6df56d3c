package quota

import (
	"context"
	"sync"
	"time"
)

// CountUncapped counts one request of an organization whose plan has no
// daily cap, without making the request wait: nothing about serving it
// depends on the count, so it goes to Redis with the next pipeline
// (uncappedLinger) while the request is proxied, and counted receives the day's count when Redis
// has answered (from the local fallback if it could not). The uncapped
// counts of one organization in a pipeline are added by one script
// (INCRBY n): the stored count is as exact as one script per request
// would leave it, each caller still hears its own count, and Redis runs
// one script per organization and round trip instead of one per request.
// Capped plans keep Take: their answer depends on the count. Drain waits
// for the counts still on their way.
func (l *Limiter) CountUncapped(orgID string, counted func(count int64)) {
	key := l.Key(orgID, l.now())
	c := &call{key: key, limit: 0, then: func(c *call) {
		count := c.count
		if c.err != nil {
			_, count = l.takeLocal(context.Background(), key, 0, c.err)
		}
		if counted != nil {
			counted(count)
		}
	}}
	l.pending.add()
	b := &l.batch
	b.mu.Lock()
	b.queue = append(b.queue, c)
	arm := !b.inFlight && !b.armed
	b.armed = b.armed || arm
	b.mu.Unlock()
	if arm {
		time.AfterFunc(uncappedLinger, l.flushQueued)
	}
}

// uncappedLinger is how long an uncapped count may wait for others to
// share its round trip when nothing else is on its way to Redis: at a
// lender's polling rate (hundreds of requests a second) each request
// otherwise paid a round trip of its own, in the gateway and in Redis
// (BENCHMARKS §18n). Counts reach Redis this much later at most; a
// capped request sends whatever is queued at once, ahead of its own
// take, and under load the pipeline in flight gathers them anyway.
const uncappedLinger = 50 * time.Millisecond

// flushQueued sends what is queued, unless a pipeline is in flight (its
// flusher sends the queue next).
func (l *Limiter) flushQueued() {
	b := &l.batch
	b.mu.Lock()
	b.armed = false
	lead := !b.inFlight && len(b.queue) > 0
	b.inFlight = b.inFlight || lead
	b.mu.Unlock()
	if lead {
		l.flush()
	}
}

// Drain waits until every count queued by CountUncapped has reached Redis
// (or the fallback), at most timeout; call it before closing the client.
func (l *Limiter) Drain(timeout time.Duration) {
	l.flushQueued() // no lingering
	if idle := l.pending.idle(); idle != nil {
		select {
		case <-idle:
		case <-time.After(timeout):
		}
	}
}

// inflight counts counts on their way. Unlike a WaitGroup it may grow
// while Drain waits (a request that outlived the server's drain).
type inflight struct {
	mu     sync.Mutex
	n      int
	zeroed chan struct{} // closed when n falls back to 0
}

func (f *inflight) add() {
	f.mu.Lock()
	if f.n == 0 {
		f.zeroed = make(chan struct{})
	}
	f.n++
	f.mu.Unlock()
}

func (f *inflight) done() {
	f.mu.Lock()
	if f.n--; f.n == 0 {
		close(f.zeroed)
	}
	f.mu.Unlock()
}

// idle returns a channel closed once nothing is in flight, or nil if
// nothing is now.
func (f *inflight) idle() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n == 0 {
		return nil
	}
	return f.zeroed
}
