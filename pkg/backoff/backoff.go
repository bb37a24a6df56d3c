// Package backoff paces retries: Sleep waits unless the context ends
// first, and Backoff doubles the wait after each failure in a row.
package backoff

import (
	"context"
	"time"
)

// Sleep waits d, or less if ctx ends first; it reports whether the whole
// d passed, so that a loop stops when it returns false.
func Sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// Backoff is the wait before the next retry: Min after a success (or at
// first), doubled after each failure up to Max. The zero Max means no
// growth.
type Backoff struct {
	Min, Max time.Duration
	next     time.Duration
}

// Wait sleeps the current wait (see Sleep) and doubles the next one.
func (b *Backoff) Wait(ctx context.Context) bool {
	d := b.current()
	b.next = min(2*d, max(b.Max, b.Min))
	return Sleep(ctx, d)
}

func (b *Backoff) current() time.Duration { return max(b.next, b.Min) }

// Reset makes the next wait Min again.
func (b *Backoff) Reset() { b.next = 0 }
