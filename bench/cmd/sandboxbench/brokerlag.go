package main

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/kycfield/kyc/pkg/kafkabus"
)

// brokerLag reads the platform's consumer lag as the broker holds it, to
// set beside kyc_consumer_lag: for every consumer group of the platform's
// topic prefix, over the partitions of the topics its members read, each
// partition's end offset minus the group's committed offset. Consumers
// commit what they applied within 200 ms (kafkabus.NewGroupReader), so
// this reads a little above a gauge that is right. Its client has a
// transport of its own, apart from the platform's in the same process.
type brokerLag struct {
	client *kafka.Client
	prefix string
}

func newBrokerLag(bus kafkabus.Config) brokerLag {
	return brokerLag{client: &kafka.Client{Addr: kafka.TCP(bus.Brokers...), Timeout: 5 * time.Second, Transport: &kafka.Transport{}},
		prefix: bus.TopicPrefix}
}

// read sums the lag of every group of the prefix that has members.
func (b brokerLag) read(ctx context.Context) (int64, error) {
	groups, err := b.client.ListGroups(ctx, &kafka.ListGroupsRequest{})
	if err != nil {
		return 0, err
	}
	var ids []string
	for _, g := range groups.Groups {
		if strings.HasPrefix(g.GroupID, b.prefix) {
			ids = append(ids, g.GroupID)
		}
	}
	if len(ids) == 0 {
		return 0, nil
	}
	described, err := b.client.DescribeGroups(ctx, &kafka.DescribeGroupsRequest{GroupIDs: ids})
	if err != nil {
		return 0, err
	}
	var total int64
	for _, g := range described.Groups {
		var topics []string
		for _, m := range g.Members {
			for _, t := range m.MemberMetadata.Topics {
				if !slices.Contains(topics, t) {
					topics = append(topics, t)
				}
			}
		}
		if len(topics) == 0 {
			continue
		}
		n, err := kafkabus.Backlog(ctx, b.client, g.GroupID, topics, nil)
		if err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}
