package platform_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/segmentio/kafka-go"

	"github.com/kycfield/kyc/pkg/config"
	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/eventually"
	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/pkg/kafkabus"
	"github.com/kycfield/kyc/pkg/kafkatest"
	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/pkg/pgtest"
	"github.com/kycfield/kyc/pkg/platform"
)

// kyc_consumer_lag on /metrics is what each consumer has not applied yet
// at scrape time, whatever it fetched: a consumer held on its third
// message shows everything from that one to the partition's end, more as
// more is produced, and 0 once it has caught up; a consumer stuck on the
// first message it was given, having applied nothing in this process,
// shows the partition's end minus its group's committed offset.
func TestConsumerLagIsTheBacklogAtScrapeTime(t *testing.T) {
	t.Parallel()
	bus := kafkatest.Config(t)
	topic := bus.Topic("things")
	if err := kafkabus.EnsureTopics(context.Background(), bus, topic); err != nil {
		t.Fatal(err)
	}
	publish := writer(t, bus, topic)
	for range 10 {
		publish()
	}
	commitAt(t, bus, bus.TopicPrefix+"lag.stuck", topic, 4)

	var working atomic.Int32
	hold, release := make(chan struct{}), make(chan struct{})
	held := func(_ context.Context, _ pgx.Tx, _ event.Event, _ map[string]any) error {
		if working.Add(1) == 3 {
			<-hold
		}
		return nil
	}
	stuck := func(_ context.Context, _ pgx.Tx, _ event.Event, _ map[string]any) error {
		<-release
		return nil
	}
	metrics := startPlatform(t, bus, func(_ context.Context, b *platform.Base) error {
		b.Subscribe(inbox.Subscription{Group: "lag.working", Topics: []string{"things"}, Routes: []inbox.Route{inbox.On(held, "thing.happened")}},
			inbox.Subscription{Group: "lag.stuck", Topics: []string{"things"}, Routes: []inbox.Route{inbox.On(stuck, "thing.happened")}})
		return nil
	})
	defer close(release) // before the platform stops: a consumer finishes the attempt in hand
	defer close(hold)

	// Held on the third (offset 2) of 10; stuck on offset 4, committed.
	lagIs(t, metrics, "lag.working", 8)
	lagIs(t, metrics, "lag.stuck", 6)
	for range 5 {
		publish()
	}
	lagIs(t, metrics, "lag.working", 13)
	lagIs(t, metrics, "lag.stuck", 11)
	hold <- struct{}{}
	lagIs(t, metrics, "lag.working", 0)
}

// writer returns publish, which writes one event to topic, all under one
// key (so to one partition). Its transport is its own: kafka-go's shared
// one may not know a topic this new for a few seconds.
func writer(t *testing.T, bus kafkabus.Config, topic string) func() {
	tr := &kafka.Transport{}
	w := kafkabus.NewWriter(bus)
	w.Transport = tr
	t.Cleanup(func() { _ = w.Close(); tr.CloseIdleConnections() })
	return func() {
		t.Helper()
		e, _ := event.New("thing.happened", "org", "test", map[string]any{})
		raw, _ := json.Marshal(e)
		var err error
		for range 150 {
			if err = w.WriteMessages(context.Background(), kafka.Message{Topic: topic, Key: []byte("k"), Value: raw}); err == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Fatal(err)
	}
}

// commitAt commits offset for group on the one partition of topic that
// has messages, as a member that read that far and left.
func commitAt(t *testing.T, bus kafkabus.Config, group, topic string, offset int64) {
	r := kafka.NewReader(kafka.ReaderConfig{Brokers: bus.Brokers, GroupID: group, Topic: topic, StartOffset: kafka.FirstOffset})
	defer r.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for {
		m, err := r.FetchMessage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if m.Offset == offset-1 {
			if err := r.CommitMessages(ctx, m); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
}

// startPlatform boots a service on bus with setup and returns its
// /metrics URL; it stops when the test ends.
func startPlatform(t *testing.T, bus kafkabus.Config, setup func(context.Context, *platform.Base) error) string {
	common := config.Common{KafkaBrokers: bus.Brokers, KafkaTopicPrefix: bus.TopicPrefix, KafkaPartitions: 3, KafkaReplication: 1,
		PrincipalSecrets: []string{"lag-test-principal-secret"}, PrincipalTTL: time.Minute, ShutdownTimeout: 10 * time.Second}
	opts := platform.Options{Name: "lagtest", Common: common, DatabaseURL: pgtest.CreateDB(t), Topics: []string{"things"}}
	ctx, cancel := context.WithCancel(context.Background())
	addr, done := make(chan string, 1), make(chan error, 1)
	go func() {
		done <- platform.Run(ctx, logging.Discard(), opts, "127.0.0.1:0", func(a string) { addr <- a }, setup)
	}()
	select {
	case a := <-addr:
		t.Cleanup(func() {
			cancel()
			if err := <-done; err != nil {
				t.Error(err)
			}
		})
		return "http://" + a + "/metrics"
	case err := <-done:
		cancel()
		t.Fatal(err)
	}
	return ""
}

// lagIs waits until the consumer's kyc_consumer_lag on metrics is want.
func lagIs(t *testing.T, metrics, consumer string, want int64) {
	t.Helper()
	line := regexp.MustCompile(`(?m)^kyc_consumer_lag\{consumer="` + regexp.QuoteMeta(consumer) + `"[^}]*\} (\S+)$`)
	eventually.Value(t, 30*time.Second, fmt.Sprintf("%s lag %d", consumer, want), func() (string, bool) {
		resp, err := http.Get(metrics)
		if err != nil {
			return err.Error(), false
		}
		defer resp.Body.Close()
		text, _ := io.ReadAll(resp.Body)
		m := line.FindSubmatch(text)
		if m == nil {
			return "no series", false
		}
		n, err := strconv.ParseInt(string(m[1]), 10, 64)
		return string(m[1]), err == nil && n == want
	})
}
