package outbox

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kycfield/kyc/pkg/backoff"
)

// A NOTIFY takes a cluster-wide lock at commit and holds it through the
// WAL flush, so transactions that NOTIFY cannot share a flush: about 950
// commits a second on this machine against 2,410 without (BENCHMARKS
// §18i). Writers therefore NOTIFY only while the relay is idle, which
// outbox_relay.idle tells them:
//
//   - busy (idle false): the relay drains batch after batch without
//     waiting, so it finds every committed row without a NOTIFY;
//   - idle (idle true, and confirmed): the relay waits for a NOTIFY, and
//     every writer sends one.
//
// The hazard is a writer that read "busy" just before the relay went
// idle and commits after the relay's last look. Add takes
// writersLockKey shared in its first INSERT, before it reads the flag,
// and holds it to commit.
// To go idle the relay commits idle = true, then takes writersLockKey
// exclusively for an instant (pg_try_advisory_lock, released at once),
// then looks once more. A writer holding the lock when the relay took it
// is impossible; one that ended before has committed, so the last look
// sees its rows; one that took the lock after reads idle = true (a fresh
// snapshot, after the relay's commit) and NOTIFYs. Only when the look
// finds nothing is idle confirmed and the relay waits. The relay tries
// the lock rather than waits for it: a waiting exclusive request would
// queue every new writer behind the slowest open one.
//
// Only the elected relay writes the flag, on the connection that holds
// the election lock: a relay that lost its session cannot overwrite the
// new one's flag. A new session knows nothing of the flag and starts
// busy: it drains first, then goes idle by the protocol above.

// busyAfter is how many drains in a row must find rows, each straight
// after the last (an idle relay: woken by a NOTIFY that was already
// waiting when it finished the drain before), before the relay tells
// writers it is busy. A commit now and then wakes an idle relay exactly
// as before this protocol, at one drain per wake; flipping the flag to
// busy and back costs two commits, worth it only under sustained load.
const busyAfter = 2

// quickWake: a wait that ended sooner found a NOTIFY already waiting, a
// commit made while the relay was draining.
const quickWake = time.Millisecond

// maxRetry bounds the pause between attempts to go idle while some
// writer holds writersLockKey (a long transaction); the relay polls at
// that pace meanwhile, so no row waits longer.
const maxRetry = 25 * time.Millisecond

// relaySession is what one elected session knows of the writers.
type relaySession struct {
	conn *pgxpool.Conn // holds the election lock
	// idle: this session committed idle = true (and not false since).
	idle bool
	// confirmed: since then, every writer that may have read false has
	// ended and its rows were found: waiting for a NOTIFY is safe.
	confirmed bool
	full      int       // drains in a row that found rows
	empty     int       // drains in a row that found none, while not confirmed
	waited    time.Time // when the relay last began to wait for a NOTIFY
}

// round is one Worker round: more is false only when the relay may wait
// for a NOTIFY.
func (r *Relay) round(ctx context.Context, s *relaySession) (more bool, err error) {
	quick := time.Since(s.waited) < quickWake
	n, err := r.drain(ctx)
	if err != nil {
		return false, err
	}
	if n > 0 {
		return r.found(ctx, s, n, quick)
	}
	s.full = 0
	if s.confirmed {
		s.waited = time.Now()
		return false, nil
	}
	// No second look before going idle: a 2 ms "linger" made the relay's
	// stage slower at 1,000 webhooks a second, not faster (BENCHMARKS §18q).
	s.empty++
	return r.goIdle(ctx, s)
}

// found follows a drain that published n rows.
func (r *Relay) found(ctx context.Context, s *relaySession, n int, quick bool) (more bool, err error) {
	s.empty = 0
	if s.confirmed && !quick {
		s.full = 1
	} else {
		s.full++
	}
	if s.idle && s.full >= busyAfter {
		return true, r.setIdle(ctx, s, false)
	}
	if s.confirmed && n < r.batch {
		// Idle, woken by a NOTIFY: the next commit NOTIFYs too.
		s.waited = time.Now()
		return false, nil
	}
	return true, nil
}

// goIdle commits idle = true, fences off every writer that may have read
// false, and looks once more. Until all of it succeeds the relay stays
// busy and keeps polling.
func (r *Relay) goIdle(ctx context.Context, s *relaySession) (more bool, err error) {
	if !s.idle {
		if err := r.setIdle(ctx, s, true); err != nil {
			return false, err
		}
	}
	var fenced bool
	err = s.conn.QueryRow(ctx, `SELECT CASE WHEN pg_try_advisory_lock($1) THEN pg_advisory_unlock($1) ELSE false END`,
		int64(writersLockKey)).Scan(&fenced)
	if err != nil {
		return false, fmt.Errorf("fence writers: %w", err)
	}
	if !fenced {
		r.hooks.fenced(false)
		// A writer is open; it may have read false. Poll until it ends.
		backoff.Sleep(ctx, min(time.Millisecond<<min(s.empty, 5), maxRetry))
		return true, nil
	}
	n, err := r.drain(ctx)
	r.hooks.fenced(true)
	if err != nil || n > 0 {
		s.full, s.empty = 1, 0
		return err == nil, err
	}
	s.confirmed = true
	s.waited = time.Now()
	r.hooks.told(true)
	return false, nil
}

// setIdle tells writers whether to NOTIFY, on the elected session.
func (r *Relay) setIdle(ctx context.Context, s *relaySession, idle bool) error {
	if _, err := s.conn.Exec(ctx, `UPDATE outbox_relay SET idle = $1`, idle); err != nil {
		return fmt.Errorf("set idle %t: %w", idle, err)
	}
	s.idle, s.confirmed, s.empty = idle, false, 0
	if !idle {
		r.hooks.told(false)
	}
	return nil
}

// relayHooks let tests follow the protocol; nil in production.
type relayHooks struct {
	// fence: an attempt to go idle is over: refused by an open writer,
	// or fenced and the last look taken.
	fence func(fenced bool)
	// mode: the relay is idle (confirmed), or has told writers it is busy.
	mode func(idle bool)
}

func (h relayHooks) fenced(ok bool) {
	if h.fence != nil {
		h.fence(ok)
	}
}

func (h relayHooks) told(idle bool) {
	if h.mode != nil {
		h.mode(idle)
	}
}
