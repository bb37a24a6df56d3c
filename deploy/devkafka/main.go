// Command devkafka runs a local single-broker Kafka for development and tests.
//
// It is built on franz-go's kfake, an in-process Kafka implementation, so a
// developer (or CI) does not need a JVM, ZooKeeper or KRaft setup. With -data
// set (the default) topics, records and committed offsets are persisted and
// survive restarts.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/twmb/franz-go/pkg/kfake"
)

func main() {
	port := flag.Int("port", 9092, "port to listen on (kfake always binds 127.0.0.1)")
	dataDir := flag.String("data", ".data/kafka", "persistence directory; topics and offsets survive restarts")
	partitions := flag.Int("partitions", 3, "default number of partitions for auto-created topics")
	logLevel := flag.String("log-level", "warn", "log level: none, error, warn, info, debug")
	flag.Parse()

	level, err := parseLevel(*logLevel)
	if err != nil {
		fmt.Fprintln(os.Stderr, "devkafka:", err)
		os.Exit(2)
	}
	if err := os.MkdirAll(*dataDir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "devkafka: create data dir:", err)
		os.Exit(1)
	}

	// Register for signals before the broker starts so an early Ctrl-C still
	// goes through the orderly Close path. Buffer 2 so a second signal during
	// shutdown is not dropped.
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)

	cluster, err := kfake.NewCluster(
		kfake.Ports(*port),
		kfake.DataDir(*dataDir),
		kfake.AllowAutoTopicCreation(),
		kfake.DefaultNumPartitions(*partitions),
		kfake.WithLogger(kfake.BasicLogger(os.Stderr, level)),
	)
	if err != nil {
		fmt.Fprintln(os.Stderr, "devkafka: start broker:", err)
		os.Exit(1)
	}

	fmt.Printf("devkafka listening on 127.0.0.1:%d (data %s)\n", *port, *dataDir)

	<-sigs
	fmt.Fprintln(os.Stderr, "devkafka: shutting down (signal again to force)...")
	done := make(chan struct{})
	go func() {
		// Close flushes in-memory state to the data dir.
		cluster.Close()
		close(done)
	}()
	select {
	case <-done:
		os.Exit(0)
	case <-sigs:
		fmt.Fprintln(os.Stderr, "devkafka: forced shutdown")
		os.Exit(1)
	}
}

func parseLevel(s string) (kfake.LogLevel, error) {
	switch strings.ToLower(s) {
	case "none":
		return kfake.LogLevelNone, nil
	case "error":
		return kfake.LogLevelError, nil
	case "warn":
		return kfake.LogLevelWarn, nil
	case "info":
		return kfake.LogLevelInfo, nil
	case "debug":
		return kfake.LogLevelDebug, nil
	}
	return kfake.LogLevelNone, fmt.Errorf("unknown log level %q (want none, error, warn, info, debug)", s)
}
