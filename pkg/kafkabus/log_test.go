package kafkabus_test

import (
	"context"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kycfield/kyc/pkg/kafkabus"
)

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
	// A file: the handler serialises kafka-go's goroutines' writes, and
	// the test reads what has landed so far.
	logFile, err := os.Create(filepath.Join(t.TempDir(), "service.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	logged := func() string { b, _ := os.ReadFile(logFile.Name()); return string(b) }
	c := kafkabus.Config{Brokers: []string{addr}, Log: slog.New(slog.NewJSONHandler(logFile, nil))}
	r := kafkabus.NewGroupReader(c, "g", "t")
	defer r.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	go func() { _, _ = r.FetchMessage(ctx) }()
	for !strings.Contains(logged(), `"level":"WARN"`) {
		if ctx.Err() != nil {
			t.Fatalf("no warning logged in 20 s; log: %q", logged())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(logged(), `"component":"kafka-go"`) {
		t.Fatalf("warning not attributed to kafka-go: %q", logged())
	}
}
