package outbox

import "time"

// WithSafetyPoll sets how often an idle relay looks without a NOTIFY, so
// that a test can make the poll too slow to hide a missed wake-up.
func (r *Relay) WithSafetyPoll(d time.Duration) *Relay {
	r.poll = d
	return r
}

// WithHooks lets a test follow the relay: fence at the end of each
// attempt to go idle (false: an open writer refused it; true: fenced,
// and the last look taken), mode at each confirmed idle (true) and each
// time it tells writers it is busy (false). They run on the relay's
// goroutine.
func (r *Relay) WithHooks(fence func(fenced bool), mode func(idle bool)) *Relay {
	r.hooks = relayHooks{fence: fence, mode: mode}
	return r
}

// WritersLockKey is the advisory lock writers hold shared, for a test
// that checks Add takes it.
const WritersLockKey = writersLockKey
