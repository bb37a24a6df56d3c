package kafkabus_test

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kycfield/kyc/pkg/kafkabus"
)

// syncBuffer is a log destination kafka-go's goroutines may write to
// while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A reader that cannot reach its group's coordinator says so in the
// service's log, as a warning, instead of waiting in silence: before
// kafka-go's loggers were wired, a consumer stuck in kafka-go's retries
// left only a lag gauge that stopped moving.
func TestReaderThatCannotJoinWarnsInTheServiceLog(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now: every dial is refused
	var out syncBuffer
	c := kafkabus.Config{Brokers: []string{addr}, Log: slog.New(slog.NewJSONHandler(&out, nil))}
	r := kafkabus.NewGroupReader(c, "g", "t")
	defer r.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	go func() { _, _ = r.FetchMessage(ctx) }()
	for !strings.Contains(out.String(), `"level":"WARN"`) {
		if ctx.Err() != nil {
			t.Fatalf("no warning logged in 20 s; log: %q", out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(out.String(), `"component":"kafka-go"`) {
		t.Fatalf("warning not attributed to kafka-go: %q", out.String())
	}
}
