package edge

import (
	"strconv"
	"testing"
	"time"
)

func TestIPLimiterAllowsABurstThenRefills(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	l := newIPLimiter(0.5, 3, func() time.Time { return now })
	for i := range 3 {
		if _, ok := l.allow("198.51.100.7"); !ok {
			t.Fatalf("request %d of the burst refused", i+1)
		}
	}
	wait, ok := l.allow("198.51.100.7")
	if ok || wait != 2*time.Second {
		t.Fatalf("over the burst: ok=%v wait=%v, want refused for 2s", ok, wait)
	}
	if _, ok := l.allow("203.0.113.9"); !ok {
		t.Fatal("another address shares the first one's bucket")
	}
	now = now.Add(2 * time.Second)
	if _, ok := l.allow("198.51.100.7"); !ok {
		t.Fatal("not refilled after 2 s at 0.5/s")
	}
	if _, ok := l.allow("198.51.100.7"); ok {
		t.Fatal("refilled more than one token in 2 s")
	}
}

func TestIPLimiterStaysBounded(t *testing.T) {
	now := time.Now()
	l := newIPLimiter(0.5, 3, func() time.Time { return now })
	for i := range maxTracked + 10 {
		l.allow(strconv.Itoa(i))
	}
	if len(l.limiters) > maxTracked {
		t.Fatalf("%d buckets tracked", len(l.limiters))
	}
}
