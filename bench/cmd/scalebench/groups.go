package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/kycfield/kyc/e2e/harness"
)

// waitGroupsStable waits until every consumer group of the run is Stable
// with members members each: a replica that joins triggers a rebalance,
// during which its group consumes nothing, and a burst measured across one
// would measure the rebalance. It returns how long that took.
func waitGroupsStable(p *harness.Platform, members int, limit time.Duration) (time.Duration, error) {
	start := time.Now()
	c := &kafka.Client{Addr: kafka.TCP(p.Bus.Brokers...), Timeout: 5 * time.Second}
	ctx := context.Background()
	for {
		groups, err := c.ListGroups(ctx, &kafka.ListGroupsRequest{})
		if err != nil {
			return 0, err
		}
		var ids []string
		for _, g := range groups.Groups {
			if strings.HasPrefix(g.GroupID, p.Bus.TopicPrefix) {
				ids = append(ids, g.GroupID)
			}
		}
		unsettled := "no groups yet"
		if len(ids) > 0 {
			d, err := c.DescribeGroups(ctx, &kafka.DescribeGroupsRequest{GroupIDs: ids})
			if err != nil {
				return 0, err
			}
			unsettled = ""
			for _, g := range d.Groups {
				if g.GroupState != "Stable" || len(g.Members) != members {
					unsettled = fmt.Sprintf("%s: %s with %d members", g.GroupID, g.GroupState, len(g.Members))
					break
				}
			}
		}
		if unsettled == "" {
			return time.Since(start), nil
		}
		if time.Since(start) > limit {
			return 0, fmt.Errorf("consumer groups not stable after %s: %s", limit, unsettled)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
