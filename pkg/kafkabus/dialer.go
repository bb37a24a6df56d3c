package kafkabus

import (
	"context"
	"net"
	"sync"
	"time"

	"github.com/segmentio/kafka-go"
)

// fetchWait is how long a reader's fetch waits at the broker for data.
// A fetch returns as soon as one message is there (MinBytes 1), so the
// wait costs no latency under load; it only decides how often an idle
// reader asks again. At 250 ms the platform's 13 consumer groups (39
// partition readers) and the gateway's broadcast asked devkafka about
// 170 times a second for nothing, about 2.6 % of a core between the two
// processes with no traffic at all (BENCHMARKS §18b).
const fetchWait = 10 * time.Second

// dialer is the readers' dialer. kafka-go does not interrupt a fetch
// when a partition reader is stopped (a rebalance, or Close): it waits
// for the broker's answer, up to the fetch's wait (segmentio/kafka-go
// issue 428). A partition reader dials with its own context, which
// kafka-go cancels when it stops the reader; closing the connection then
// ends the fetch at once, so Close and rebalances stay as quick as with
// a short wait. Connections dialled with a context that never ends (the
// consumer group's coordinator connections) are closed by kafka-go as
// before.
//
// The Dialer has no Timeout on purpose: kafka-go would derive a context
// from the reader's with that timeout and cancel it as soon as the dial
// returns. The dial itself is bounded here instead.
func dialer() *kafka.Dialer {
	nd := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	return &kafka.Dialer{
		DialFunc: func(ctx context.Context, network, address string) (net.Conn, error) {
			c, err := nd.DialContext(ctx, network, address)
			if err != nil {
				return nil, err
			}
			cc := &closeOnDone{Conn: c}
			cc.stop = context.AfterFunc(ctx, func() { _ = c.Close() })
			return cc, nil
		},
	}
}

// closeOnDone is a connection closed when its dialling context ends.
type closeOnDone struct {
	net.Conn
	once sync.Once
	stop func() bool
}

// Close closes the connection and forgets the context.
func (c *closeOnDone) Close() error {
	c.once.Do(func() { c.stop() })
	return c.Conn.Close()
}
