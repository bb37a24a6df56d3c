package quota

import (
	"context"
	"testing"
	"time"

	"go.opentelemetry.io/otel/metric/noop"

	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/pkg/redistest"
)

// TestReserveTakesAllOrNothing: an import's reservation is taken whole
// or not at all, shares the day's counter with single requests, and
// what is given back is free again.
func TestReserveTakesAllOrNothing(t *testing.T) {
	rdb, prefix := redistest.New(t)
	l := New(rdb, prefix, logging.Discard(), noop.NewMeterProvider().Meter(""))
	ctx := context.Background()
	steps := []struct {
		name    string
		do      func() Decision
		allowed bool
		count   int64
	}{
		{"a request", func() Decision { return l.Take(ctx, "org_r", 100) }, true, 1},
		{"90 rows fit", func() Decision { return l.Reserve(ctx, "org_r", 100, 90) }, true, 91},
		{"10 rows do not (9 left)", func() Decision { return l.Reserve(ctx, "org_r", 100, 10) }, false, 91},
		{"9 rows do", func() Decision { return l.Reserve(ctx, "org_r", 100, 9) }, true, 100},
		{"then no request", func() Decision { return l.Take(ctx, "org_r", 100) }, false, 100},
		{"no cap on plan without one", func() Decision { return l.Reserve(ctx, "org_free", 0, 5000) }, true, 5000},
	}
	for _, s := range steps {
		d := s.do()
		if d.Allowed != s.allowed || d.Count != s.count {
			t.Fatalf("%s: allowed %v count %d, want %v %d", s.name, d.Allowed, d.Count, s.allowed, s.count)
		}
	}
	if err := l.Release(ctx, "org_r", 9, time.Now()); err != nil {
		t.Fatal(err)
	}
	if n, _ := l.Count(ctx, "org_r", time.Now()); n != 91 {
		t.Fatalf("after the release: %d", n)
	}
	if d := l.Take(ctx, "org_r", 100); !d.Allowed || d.Remaining != 8 {
		t.Fatalf("a request after the release: %+v", d)
	}
}
