package server

import (
	"context"
	"sync/atomic"
	"time"
)

// DefaultGrace is how long the work in hand may outlive its worker's
// context when that context carries no drain deadline (a worker run
// outside Run, as in a package's own tests).
const DefaultGrace = 10 * time.Second

type deadlineKey struct{}

// deadline is when the process's drain ends; zero until shutdown starts.
type deadline struct{ at atomic.Int64 }

// Hand returns the context for finishing the work a worker holds (a
// message fetched, a delivery claimed) once told to stop: it does not end
// when ctx ends, only when the process's drain deadline passes (or
// DefaultGrace after ctx ended, outside Run). A worker checks ctx to stop
// taking new work and uses Hand for the work it has taken, so that a
// message is applied and committed, or a webhook attempt sent and
// recorded, rather than abandoned half way and done again by another
// replica.
func Hand(ctx context.Context) (context.Context, context.CancelFunc) {
	hand, cancel := context.WithCancel(context.WithoutCancel(ctx))
	var timer atomic.Pointer[time.Timer]
	stop := context.AfterFunc(ctx, func() {
		grace := DefaultGrace
		if dl, ok := ctx.Value(deadlineKey{}).(*deadline); ok {
			if at := dl.at.Load(); at != 0 {
				grace = time.Until(time.Unix(0, at))
			}
		}
		timer.Store(time.AfterFunc(grace, cancel))
	})
	return hand, func() {
		stop()
		if t := timer.Load(); t != nil {
			t.Stop()
		}
		cancel()
	}
}
