// Package usage reports what the gateway counted to auth-billing: every
// few seconds, for each organization seen, the day's absolute request
// count (the highest the quota counter returned to this instance) and when
// each of its keys was last used. Counts are absolute and only ever raise the stored value, so a lost
// or repeated report does no harm and no outbox is needed.
package usage

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/kycfield/kyc/pkg/event"
)

// TypeReport is the event type of a usage report.
const TypeReport = "gateway.usage"

// Report is the data of gateway.usage, for one organization and day
// (UTC): the absolute request count so far and when each key was last
// used that day. Its schema is api/events/gateway-usage.json.
type Report struct {
	Day      string               `json:"day"` // yyyy-mm-dd
	Requests int64                `json:"requests"`
	Keys     map[string]time.Time `json:"keys"`
}

// Event is the gateway.usage event of org's report.
func Event(org string, r Report) (event.Event, error) { return event.New(TypeReport, org, "", r) }

// Publisher is the part of kafka.Writer used.
type Publisher interface {
	WriteMessages(ctx context.Context, msgs ...kafka.Message) error
}

type seen struct {
	days map[string]int64 // yyyy-mm-dd -> the highest count seen that day
	keys map[string]time.Time
}

// Reporter collects what was seen and publishes it periodically.
type Reporter struct {
	pub      Publisher
	topic    string
	interval time.Duration
	log      *slog.Logger
	mu       sync.Mutex
	orgs     map[string]*seen
}

// New returns a Reporter publishing to topic (full name).
func New(pub Publisher, topic string, interval time.Duration, log *slog.Logger) *Reporter {
	return &Reporter{pub: pub, topic: topic, interval: interval, log: log, orgs: map[string]*seen{}}
}

// Seen records one authenticated request and the day's count the quota
// returned for it (counts are global, so the highest one is the total).
func (r *Reporter) Seen(orgID, keyID string, count int64, at time.Time) {
	day := at.UTC().Format(time.DateOnly)
	r.mu.Lock()
	s := r.orgs[orgID]
	if s == nil {
		s = &seen{days: map[string]int64{}, keys: map[string]time.Time{}}
		r.orgs[orgID] = s
	}
	s.days[day] = max(s.days[day], count)
	if keyID != "" { // a dashboard session, not a key
		s.keys[keyID] = at
	}
	r.mu.Unlock()
}

// Run flushes every interval until ctx ends, then once more.
func (r *Reporter) Run(ctx context.Context) error {
	t := time.NewTicker(r.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			fctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			r.Flush(fctx)
			cancel()
			return nil
		case <-t.C:
			r.Flush(ctx)
		}
	}
}

// Flush publishes one report per organization and day seen since the
// last flush.
func (r *Reporter) Flush(ctx context.Context) {
	r.mu.Lock()
	orgs := r.orgs
	r.orgs = map[string]*seen{}
	r.mu.Unlock()
	var msgs []kafka.Message
	for org, s := range orgs {
		for day, n := range s.days {
			keys := map[string]time.Time{}
			for id, t := range s.keys {
				if t.UTC().Format(time.DateOnly) == day {
					keys[id] = t
				}
			}
			e, err := Event(org, Report{Day: day, Requests: n, Keys: keys})
			if err != nil {
				continue
			}
			b, _ := json.Marshal(e)
			msgs = append(msgs, kafka.Message{Topic: r.topic, Key: []byte(org), Value: b})
		}
	}
	if len(msgs) == 0 {
		return
	}
	if err := r.pub.WriteMessages(ctx, msgs...); err != nil {
		r.log.WarnContext(ctx, "usage report not published; the next one carries the totals", "err", err)
	}
}
