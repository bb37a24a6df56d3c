package backoff

import (
	"context"
	"testing"
	"time"
)

func TestSleepStopsWithTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	if !Sleep(ctx, time.Millisecond) {
		t.Fatal("a short sleep reported the context ended")
	}
	cancel()
	start := time.Now()
	if Sleep(ctx, time.Hour) {
		t.Fatal("a cancelled sleep reported it slept")
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("a cancelled sleep took %v", d)
	}
}

func TestBackoffDoublesUpToMaxAndResets(t *testing.T) {
	b := Backoff{Min: time.Millisecond, Max: 4 * time.Millisecond}
	var got []time.Duration
	for range 5 {
		got = append(got, b.current())
		b.Wait(context.Background())
	}
	want := []time.Duration{1, 2, 4, 4, 4}
	for i := range want {
		if got[i] != want[i]*time.Millisecond {
			t.Fatalf("waits %v, want %v ms", got, want)
		}
	}
	b.Reset()
	if d := b.current(); d != time.Millisecond {
		t.Fatalf("after Reset the wait is %v", d)
	}
	fixed := Backoff{Min: time.Millisecond}
	fixed.Wait(context.Background())
	if d := fixed.current(); d != time.Millisecond {
		t.Fatalf("without Max the wait grew to %v", d)
	}
}
