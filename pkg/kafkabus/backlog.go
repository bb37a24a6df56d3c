package kafkabus

import (
	"context"
	"fmt"

	"github.com/segmentio/kafka-go"
)

// TopicPartition names one partition of a topic.
type TopicPartition struct {
	Topic     string
	Partition int
}

// Backlog is how many messages of topics (full names) the consumer group
// has yet to apply, asked of the broker now: over every partition, its end
// offset minus the next offset the group will apply. That next offset is
// the later of the group's committed offset and next[partition], where the
// caller's own consumer has got to (it applies before it commits, and
// commits are flushed asynchronously); a partition with neither counts
// from its first offset, where a new group starts (NewGroupReader).
//
// It costs a few small requests: the partitions come from client's
// cached metadata, then one OffsetFetch to the group's coordinator and one
// ListOffsets per partition to its leader. Nothing is left running.
func Backlog(ctx context.Context, client *kafka.Client, group string, topics []string, next map[TopicPartition]int64) (int64, error) {
	parts, err := partitionsOf(ctx, client, topics)
	if err != nil {
		return 0, err
	}
	at, err := committed(ctx, client, group, parts)
	if err != nil {
		return 0, err
	}
	req := map[string][]kafka.OffsetRequest{}
	for t, ids := range parts {
		for _, id := range ids {
			tp := TopicPartition{t, id}
			if n, ok := next[tp]; ok {
				at[tp] = max(at[tp], n)
			}
			req[t] = append(req[t], kafka.LastOffsetOf(id))
			if at[tp] < 0 {
				req[t] = append(req[t], kafka.FirstOffsetOf(id))
			}
		}
	}
	res, err := client.ListOffsets(ctx, &kafka.ListOffsetsRequest{Topics: req})
	if err != nil {
		return 0, err
	}
	var total int64
	for t, ps := range res.Topics {
		for _, p := range ps {
			if p.Error != nil {
				return 0, fmt.Errorf("kafkabus: end offset of %s/%d: %w", t, p.Partition, p.Error)
			}
			from := at[TopicPartition{t, p.Partition}]
			if from < 0 {
				from = p.FirstOffset
			}
			if p.LastOffset < 0 || from < 0 {
				return 0, fmt.Errorf("kafkabus: no offsets for %s/%d", t, p.Partition)
			}
			total += max(p.LastOffset-from, 0)
		}
	}
	return total, nil
}

// partitionsOf lists each topic's partition ids.
func partitionsOf(ctx context.Context, client *kafka.Client, topics []string) (map[string][]int, error) {
	meta, err := client.Metadata(ctx, &kafka.MetadataRequest{Topics: topics})
	if err != nil {
		return nil, err
	}
	parts := make(map[string][]int, len(topics))
	for _, t := range meta.Topics {
		if t.Error != nil {
			return nil, fmt.Errorf("kafkabus: partitions of %s: %w", t.Name, t.Error)
		}
		for _, p := range t.Partitions {
			parts[t.Name] = append(parts[t.Name], p.ID)
		}
	}
	for _, t := range topics {
		if len(parts[t]) == 0 {
			return nil, fmt.Errorf("kafkabus: partitions of %s: none known", t)
		}
	}
	return parts, nil
}

// committed returns group's committed offset on each of parts (-1 where
// it has committed none).
func committed(ctx context.Context, client *kafka.Client, group string, parts map[string][]int) (map[TopicPartition]int64, error) {
	res, err := client.OffsetFetch(ctx, &kafka.OffsetFetchRequest{GroupID: group, Topics: parts})
	if err != nil {
		return nil, err
	}
	if res.Error != nil {
		return nil, fmt.Errorf("kafkabus: committed offsets of %s: %w", group, res.Error)
	}
	at := map[TopicPartition]int64{}
	for t, ids := range parts {
		for _, id := range ids {
			at[TopicPartition{t, id}] = -1
		}
	}
	for t, ps := range res.Topics {
		for _, p := range ps {
			if p.Error != nil {
				return nil, fmt.Errorf("kafkabus: committed offset of %s on %s/%d: %w", group, t, p.Partition, p.Error)
			}
			if _, ok := at[TopicPartition{t, p.Partition}]; ok {
				at[TopicPartition{t, p.Partition}] = p.CommittedOffset
			}
		}
	}
	return at, nil
}
