package eventually

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// recorder is a testing.TB that records a failure instead of ending the
// test.
type recorder struct {
	testing.TB
	failure string
}

func (r *recorder) Helper() {}

func (r *recorder) Fatalf(format string, args ...any) { r.failure = fmt.Sprintf(format, args...) }

func TestValueReturnsWhatItSawWhenDone(t *testing.T) {
	n := 0
	got := Value(t, 5*time.Second, "the third call", func() (int, bool) { n++; return n, n == 3 })
	if got != 3 {
		t.Fatalf("got %d, want 3", got)
	}
}

func TestValueReportsTheLastObservedValue(t *testing.T) {
	r := &recorder{TB: t}
	n := 0
	Value(r, 50*time.Millisecond, "a status of DONE", func() (string, bool) { n++; return fmt.Sprintf("PENDING %d", n), false })
	if !strings.Contains(r.failure, "a status of DONE") || !strings.Contains(r.failure, fmt.Sprintf("PENDING %d", n)) {
		t.Fatalf("failure %q does not name the wait and the last value (PENDING %d)", r.failure, n)
	}
}

func TestTrue(t *testing.T) {
	start := time.Now()
	True(t, 5*time.Second, "100 ms to pass", func() bool { return time.Since(start) > 100*time.Millisecond })
	r := &recorder{TB: t}
	True(r, 30*time.Millisecond, "never", func() bool { return false })
	if !strings.Contains(r.failure, "never") {
		t.Fatalf("failure %q", r.failure)
	}
}
