package inbox_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/segmentio/kafka-go"

	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/pkg/pgtest"
)

func TestPermanentKeepsItsCauseAndNeverPanics(t *testing.T) {
	cause := errors.New("bad payload")
	for _, tc := range []struct {
		name string
		in   error
		want string
	}{
		{"with a cause", cause, "bad payload"},
		{"nil cause", nil, "permanent failure"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := inbox.Permanent(tc.in)
			if err == nil {
				t.Fatal("Permanent returned nil: the event would count as applied")
			}
			if !inbox.IsPermanent(err) || !inbox.IsPermanent(fmt.Errorf("wrapped: %w", err)) {
				t.Errorf("Permanent(%v) is not recognised as permanent", tc.in)
			}
			if tc.in != nil && !errors.Is(err, tc.in) {
				t.Errorf("Permanent(%v) does not wrap its cause", tc.in)
			}
			for _, s := range []string{err.Error(), fmt.Sprint(err), fmt.Sprintf("%+v", err)} {
				if strings.Contains(s, "PANIC") || !strings.Contains(s, tc.want) {
					t.Errorf("Permanent(%v) prints %q; want it to mention %q", tc.in, s, tc.want)
				}
			}
		})
	}
	if inbox.IsPermanent(errors.New("transient")) || inbox.IsPermanent(nil) {
		t.Error("an unmarked error counts as permanent")
	}
}

// oneMessage delivers one message, then cancels the run once that message
// is committed.
type oneMessage struct {
	msg       kafka.Message
	delivered atomic.Bool
	committed atomic.Int32
	cancel    context.CancelFunc
}

func (f *oneMessage) FetchMessage(ctx context.Context) (kafka.Message, error) {
	if f.delivered.CompareAndSwap(false, true) {
		return f.msg, nil
	}
	<-ctx.Done()
	return kafka.Message{}, ctx.Err()
}

func (f *oneMessage) CommitMessages(_ context.Context, msgs ...kafka.Message) error {
	f.committed.Add(int32(len(msgs)))
	f.cancel()
	return nil
}

// A handler returning Permanent(nil) (a payload that decodes but is
// invalid) gets its event skipped at once, with a readable log line.
func TestPermanentNilIsSkippedWithAReadableLog(t *testing.T) {
	t.Parallel()
	pool, _ := pgtest.NewDB(t, inbox.Migration())
	e, _ := event.New("invalid", "org", "test", nil)
	raw, _ := json.Marshal(e)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	f := &oneMessage{msg: kafka.Message{Topic: "in", Value: raw}, cancel: cancel}
	var calls atomic.Int32
	h := func(context.Context, pgx.Tx, event.Event) error {
		calls.Add(1)
		return inbox.Permanent(nil)
	}
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	if err := inbox.New("g", f, pool, log, h).Run(ctx); err != nil {
		t.Fatal(err)
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("the event was never committed; log:\n%s", logs.String())
	}
	if calls.Load() != 1 || f.committed.Load() != 1 {
		t.Fatalf("handler ran %d times, %d commits; want 1 and 1 (skipped, not retried)", calls.Load(), f.committed.Load())
	}
	out := logs.String()
	if strings.Contains(out, "PANIC") || !strings.Contains(out, "skipping event that cannot be applied") ||
		!strings.Contains(out, "permanent failure") {
		t.Fatalf("log:\n%s", out)
	}
}
