// Package refusal records the public-API requests the gateway refuses a
// dashboard member for their role (a viewer writing, or reading a
// webhook secret) as org.action events with outcome refused on the
// org-audit topic, so the organization's audit log shows the attempt
// under the name the service gives the change (routes.Table's Action).
// The gateway has no database and no outbox: the record is written to
// Kafka synchronously, before the 403 is answered; a failed write is
// logged and the answer stays 403 (the refusal itself never depends on
// the log).
package refusal

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/orgaudit"
	"github.com/kycfield/kyc/pkg/principal"
)

// Publisher is the part of kafka.Writer used.
type Publisher interface {
	WriteMessages(ctx context.Context, msgs ...kafka.Message) error
}

// Recorder writes refusals to the org-audit topic.
type Recorder struct {
	pub     Publisher
	topic   string
	timeout time.Duration
	log     *slog.Logger
}

// New returns a Recorder writing to topic (the full org-audit topic
// name), waiting at most timeout for each write.
func New(pub Publisher, topic string, timeout time.Duration, log *slog.Logger) *Recorder {
	return &Recorder{pub: pub, topic: topic, timeout: timeout, log: log}
}

// Refused records that p was refused the route's action (routes.Table's
// Action: the name its service gives the change) by a method request to
// path (the request's actual path).
func (r *Recorder) Refused(ctx context.Context, p principal.Principal, action, method, path string) {
	e, err := Event(p, action, method, path, time.Now().UTC())
	if err != nil {
		r.log.WarnContext(ctx, "refusal not audited", "err", err)
		return
	}
	b, err := json.Marshal(e)
	if err != nil {
		r.log.WarnContext(ctx, "refusal not audited", "err", err)
		return
	}
	// The client hanging up must not lose the record: the write gets its
	// own deadline, not the request's cancellation.
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.timeout)
	defer cancel()
	if err := r.pub.WriteMessages(wctx, kafka.Message{Topic: r.topic, Key: []byte(p.OrgID), Value: b}); err != nil {
		r.log.WarnContext(ctx, "refusal not audited: org-audit write failed", "err", err, "org", p.OrgID, "user", p.UserID)
	}
}

// Event is the org.action event of p's refused request, as Refused
// writes it (the contract test's sample too).
func Event(p principal.Principal, action, method, path string, at time.Time) (event.Event, error) {
	a := orgaudit.Action{ActorType: orgaudit.ActorUser, ActorID: p.UserID, MemberRole: string(p.MemberRole),
		Action: action, Outcome: orgaudit.Refused, IP: p.ClientIP, At: at,
		Details: map[string]any{"method": method, "path": path}}
	return event.New(orgaudit.Type, p.OrgID, string(p.Env), a)
}
