package quota

import (
	"context"
	"sync"
	"time"
)

// CountUncapped counts one request of an organization whose plan has no
// daily cap, without making the request wait: nothing about serving it
// depends on the count, so the script goes to Redis in the next pipeline
// (the same one-script-per-request count as Take, exact) while the
// request is proxied, and counted receives the day's count when Redis has
// answered (from the local fallback if it could not). Capped plans keep
// Take: their answer depends on the count. Drain waits for the counts
// still on their way.
func (l *Limiter) CountUncapped(orgID string, counted func(count int64)) {
	key := l.Key(orgID, l.now())
	c := &call{key: key, limit: 0, done: make(chan struct{}), then: func(c *call) {
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
	lead := !b.inFlight
	b.inFlight = true
	b.mu.Unlock()
	if lead {
		go l.flush()
	}
}

// Drain waits until every count queued by CountUncapped has reached Redis
// (or the fallback), at most timeout; call it before closing the client.
func (l *Limiter) Drain(timeout time.Duration) {
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
