package quota

import (
	"context"
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
	l.pending.Add(1)
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
	done := make(chan struct{})
	go func() { l.pending.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(timeout):
	}
}
