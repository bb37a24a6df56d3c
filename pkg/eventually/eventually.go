// Package eventually waits, in tests, for what an asynchronous system
// does sooner or later (an event consumed, a delivery logged). The
// deadline only stops a test that would otherwise hang: it measures
// nothing, so make it generous. On failure the test reports the last
// value it saw, which says what the system was doing instead.
package eventually

import (
	"testing"
	"time"
)

// Value calls observe until it reports done, and returns the value
// observe returned then. If within passes first, it fails t with what and
// the last value observed.
//
// The pause between calls grows from 10 ms to 250 ms, so a quick result
// is seen quickly and a slow one does not busy the machine.
func Value[T any](t testing.TB, within time.Duration, what string, observe func() (T, bool)) T {
	t.Helper()
	deadline := time.Now().Add(within)
	pause := 10 * time.Millisecond
	for {
		v, done := observe()
		if done {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("gave up after %s waiting for %s; last observed: %+v", within, what, v)
			return v
		}
		time.Sleep(pause)
		pause = min(pause*3/2, 250*time.Millisecond)
	}
}

// True waits until cond holds. Prefer Value when there is something to
// show on failure.
func True(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	Value(t, within, what, func() (bool, bool) { ok := cond(); return ok, ok })
}
