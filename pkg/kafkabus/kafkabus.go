// Package kafkabus configures segmentio/kafka-go the way this platform
// needs it: writers that wait for every in-sync replica, flush within
// milliseconds and hash by key (one customer's events stay in order);
// group readers that start from the oldest offset so a new consumer misses
// nothing; topics created up front.
package kafkabus

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/segmentio/kafka-go"
)

// Config locates the brokers and names the topics.
type Config struct {
	Brokers     []string
	TopicPrefix string
	// Partitions and Replication apply to topics this process creates.
	Partitions  int
	Replication int
	// Log, if set, receives kafka-go's own messages: errors as warnings
	// (a failed join, a fetch error, a commit refused after a rebalance),
	// the rest (group joins, assignments, commits) at debug. Without it a
	// reader that stops fetching, in a retry loop inside kafka-go, says
	// nothing at all.
	Log *slog.Logger
}

// loggers returns kafka-go's info and error loggers for c.Log (nil, nil
// without one: kafka-go then logs nothing).
func (c Config) loggers() (info, errs kafka.Logger) {
	if c.Log == nil {
		return nil, nil
	}
	l := c.Log.With("component", "kafka-go")
	return kafka.LoggerFunc(func(msg string, args ...any) {
			if l.Enabled(context.Background(), slog.LevelDebug) {
				l.Debug(fmt.Sprintf(msg, args...))
			}
		}), kafka.LoggerFunc(func(msg string, args ...any) {
			text := fmt.Sprintf(msg, args...)
			if strings.Contains(text, net.ErrClosed.Error()) {
				// A reader closed at shutdown reports each partition's
				// fetch as failed on the closed connection: expected, and
				// one line per partition and group on every stop.
				l.Debug(text)
				return
			}
			l.Warn(text)
		})
}

// Topic returns the full name of a topic.
func (c Config) Topic(name string) string { return c.TopicPrefix + name }

// NewWriter returns a synchronous, acknowledged, key-hashing writer. The
// topic is set per message.
func NewWriter(c Config) *kafka.Writer {
	_, errs := c.loggers()
	return &kafka.Writer{
		ErrorLogger:  errs,
		Addr:         kafka.TCP(c.Brokers...),
		Balancer:     &kafka.Hash{},
		RequiredAcks: kafka.RequireAll,
		BatchTimeout: 2 * time.Millisecond,
		WriteTimeout: 10 * time.Second,
		MaxAttempts:  5,
	}
}

// heartbeat is how often a group member tells the coordinator it is
// alive, and so how soon it hears of a rebalance: Kafka's classic default
// beside a 10 s session timeout. At 1 s the platform's 13 groups sent 13
// heartbeats a second, idle or not.
const heartbeat = 3 * time.Second

// NewGroupReader returns a consumer-group reader over topics (full names).
// Offsets are committed explicitly by the caller after its effect is
// durable; commits are flushed asynchronously every CommitInterval, which is
// safe because consumers are idempotent.
func NewGroupReader(c Config, group string, topics ...string) *kafka.Reader {
	info, errs := c.loggers()
	return kafka.NewReader(kafka.ReaderConfig{
		Logger:            info,
		ErrorLogger:       errs,
		Brokers:           c.Brokers,
		Dialer:            dialer(),
		GroupID:           group,
		GroupTopics:       topics,
		MinBytes:          1,
		MaxBytes:          10 << 20,
		MaxWait:           fetchWait,
		StartOffset:       kafka.FirstOffset,
		CommitInterval:    200 * time.Millisecond,
		HeartbeatInterval: heartbeat,
		SessionTimeout:    10 * time.Second,
		RebalanceTimeout:  10 * time.Second,
		JoinGroupBackoff:  500 * time.Millisecond,
		ReadBackoffMin:    50 * time.Millisecond,
		ReadBackoffMax:    500 * time.Millisecond,
	})
}

// EnsureTopics creates the named topics (full names) when they are missing.
func EnsureTopics(ctx context.Context, c Config, topics ...string) error {
	conn, err := dial(ctx, c.Brokers)
	if err != nil {
		return err
	}
	defer conn.Close()
	ctrl, err := conn.Controller()
	if err != nil {
		return fmt.Errorf("kafkabus: controller: %w", err)
	}
	cc, err := (&kafka.Dialer{Timeout: 5 * time.Second}).DialContext(ctx, "tcp", net.JoinHostPort(ctrl.Host, strconv.Itoa(ctrl.Port)))
	if err != nil {
		return fmt.Errorf("kafkabus: dial controller: %w", err)
	}
	defer cc.Close()
	parts, repl := c.Partitions, c.Replication
	if parts <= 0 {
		parts = 3
	}
	if repl <= 0 {
		repl = 1
	}
	cfgs := make([]kafka.TopicConfig, 0, len(topics))
	for _, t := range topics {
		cfgs = append(cfgs, kafka.TopicConfig{Topic: t, NumPartitions: parts, ReplicationFactor: repl})
	}
	if err := cc.CreateTopics(cfgs...); err != nil && !errors.Is(err, kafka.TopicAlreadyExists) {
		return fmt.Errorf("kafkabus: create topics: %w", err)
	}
	return nil
}

// Ping checks that a broker answers; readiness probes use it.
func Ping(ctx context.Context, brokers []string) error {
	conn, err := dial(ctx, brokers)
	if err != nil {
		return err
	}
	return conn.Close()
}

// Partitions lists the partition ids of a topic.
func Partitions(ctx context.Context, brokers []string, topic string) ([]int, error) {
	conn, err := dial(ctx, brokers)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	ps, err := conn.ReadPartitions(topic)
	if err != nil {
		return nil, fmt.Errorf("kafkabus: partitions of %s: %w", topic, err)
	}
	ids := make([]int, 0, len(ps))
	for _, p := range ps {
		ids = append(ids, p.ID)
	}
	return ids, nil
}

func dial(ctx context.Context, brokers []string) (*kafka.Conn, error) {
	var last error
	for _, b := range brokers {
		conn, err := (&kafka.Dialer{Timeout: 5 * time.Second}).DialContext(ctx, "tcp", b)
		if err == nil {
			return conn, nil
		}
		last = err
	}
	return nil, fmt.Errorf("kafkabus: no broker reachable: %w", last)
}
