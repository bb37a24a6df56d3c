// Package refusal records the public-API requests the gateway refuses a
// dashboard member for their role (a viewer writing, or reading a
// webhook secret) as org.action events with outcome refused on the
// org-audit topic, so the organization's audit log shows the attempt.
// The gateway has no database and no outbox: the record is written to
// Kafka synchronously, before the 403 is answered; a failed write is
// logged and the answer stays 403 (the refusal itself never depends on
// the log).
package refusal

import (
	"context"
	"encoding/json"
	"log/slog"
	"regexp"
	"strings"
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

// Refused records that p was refused method on the route pattern (path
// is the request's actual path).
func (r *Recorder) Refused(ctx context.Context, p principal.Principal, method, pattern, path string) {
	e, err := Event(p, method, pattern, path, time.Now().UTC())
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
func Event(p principal.Principal, method, pattern, path string, at time.Time) (event.Event, error) {
	a := orgaudit.Action{ActorType: orgaudit.ActorUser, ActorID: p.UserID, MemberRole: string(p.MemberRole),
		Action: ActionOf(method, pattern), Outcome: orgaudit.Refused, IP: p.ClientIP, At: at,
		Details: map[string]any{"method": method, "path": path}}
	return event.New(orgaudit.Type, p.OrgID, string(p.Env), a)
}

var notWord = regexp.MustCompile(`[^a-z_]+`)

// ActionOf names a public-API operation as the audit log's actions are
// named ("resource.verb"): POST /api/v1/webhooks is webhook.create, GET
// /api/v1/webhooks/{id}/secret is webhook.secret, DELETE
// /api/v1/customers/{id} is customer.delete.
func ActionOf(method, pattern string) string {
	var words []string
	last := ""
	for _, seg := range strings.Split(strings.TrimPrefix(pattern, "/api/v1/"), "/") {
		last = seg
		if seg == "" || strings.HasPrefix(seg, "{") {
			continue
		}
		words = append(words, strings.Trim(notWord.ReplaceAllString(strings.ToLower(seg), "_"), "_"))
	}
	if len(words) == 0 {
		return "api.request"
	}
	resource := strings.TrimSuffix(words[0], "s")
	if resource == "" {
		resource = "api"
	}
	if len(words) > 1 {
		return resource + "." + words[len(words)-1]
	}
	verb := map[string]string{"POST": "create", "PUT": "update", "PATCH": "update", "DELETE": "delete", "GET": "read"}[method]
	if method == "GET" && !strings.HasPrefix(last, "{") {
		verb = "list"
	}
	if verb == "" {
		verb = "request"
	}
	return resource + "." + verb
}
