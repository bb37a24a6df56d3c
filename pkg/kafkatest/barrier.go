package kafkatest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/eventually"
	"github.com/kycfield/kyc/pkg/kafkabus"
)

// BarrierType is the event type of a barrier: no consumer handles it, so
// each one skips it and moves on.
const BarrierType = "test.barrier"

// Barrier proves that every consumer of topic has caught up: it writes a
// barrier event at the end of each partition, then waits until every
// consumer group of the config's prefix that reads topic has committed
// past it (a group that has neither joined nor committed yet is not
// seen). Consumers handle a partition in order and commit after the
// effect, so from then on anything caused by an earlier message (a
// redelivery after a rebalance included) has happened: a test can assert
// that something did not, without sleeping.
func Barrier(t testing.TB, c kafkabus.Config, topic, orgID string, within time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	parts, err := kafkabus.Partitions(ctx, c.Brokers, topic)
	if err != nil {
		t.Fatalf("kafkatest: barrier: %v", err)
	}
	ends := map[int]int64{} // partition -> offset just past its barrier
	for _, p := range parts {
		ends[p] = writeBarrier(ctx, t, c, topic, orgID, p)
	}
	client := &kafka.Client{Addr: kafka.TCP(c.Brokers...), Timeout: 10 * time.Second}
	eventually.Value(t, within, "every consumer group of "+topic+" past the barrier", func() (string, bool) {
		behind, err := groupsBehind(ctx, client, c.TopicPrefix, topic, parts, ends)
		if err != nil {
			return err.Error(), false
		}
		return behind, behind == ""
	})
}

// writeBarrier appends a barrier event to one partition and returns the
// offset after it.
func writeBarrier(ctx context.Context, t testing.TB, c kafkabus.Config, topic, orgID string, partition int) int64 {
	t.Helper()
	e, err := event.New(BarrierType, orgID, "test", map[string]any{"partition": partition})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := kafka.DialLeader(ctx, "tcp", c.Brokers[0], topic, partition)
	if err != nil {
		t.Fatalf("kafkatest: barrier: %v", err)
	}
	defer conn.Close()
	if _, err := conn.WriteMessages(kafka.Message{Key: []byte("barrier"), Value: raw}); err != nil {
		t.Fatalf("kafkatest: barrier: %v", err)
	}
	end, err := conn.ReadLastOffset()
	if err != nil {
		t.Fatalf("kafkatest: barrier: %v", err)
	}
	return end
}

// groupsBehind names the groups of prefix that read topic and have not
// yet committed ends on every partition ("" when none). A group reads
// topic when a member subscribes to it or it has committed on it.
func groupsBehind(ctx context.Context, client *kafka.Client, prefix, topic string, parts []int, ends map[int]int64) (string, error) {
	groups, err := client.ListGroups(ctx, &kafka.ListGroupsRequest{})
	if err != nil {
		return "", err
	}
	var ids []string
	for _, g := range groups.Groups {
		if strings.HasPrefix(g.GroupID, prefix) {
			ids = append(ids, g.GroupID)
		}
	}
	if len(ids) == 0 {
		return "", nil
	}
	described, err := client.DescribeGroups(ctx, &kafka.DescribeGroupsRequest{GroupIDs: ids})
	if err != nil {
		return "", err
	}
	var behind []string
	for _, g := range described.Groups {
		reads := false
		for _, m := range g.Members {
			reads = reads || slices.Contains(m.MemberMetadata.Topics, topic)
		}
		offsets, err := client.OffsetFetch(ctx, &kafka.OffsetFetchRequest{GroupID: g.GroupID, Topics: map[string][]int{topic: parts}})
		if err != nil {
			return "", err
		}
		var late []string
		for _, p := range offsets.Topics[topic] {
			reads = reads || p.CommittedOffset >= 0
			if p.CommittedOffset < ends[p.Partition] {
				late = append(late, fmt.Sprintf("%d at %d of %d", p.Partition, p.CommittedOffset, ends[p.Partition]))
			}
		}
		if reads && len(late) > 0 {
			behind = append(behind, g.GroupID+" (partition "+strings.Join(late, ", ")+")")
		}
	}
	return strings.Join(behind, "; "), nil
}
