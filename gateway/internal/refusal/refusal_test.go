package refusal

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/pkg/orgaudit"
	"github.com/kycfield/kyc/pkg/principal"
)

type pub struct {
	msgs []kafka.Message
	err  error
	// live is whether the write's context was live when written.
	live bool
}

func (p *pub) WriteMessages(ctx context.Context, msgs ...kafka.Message) error {
	p.live = ctx.Err() == nil
	p.msgs = append(p.msgs, msgs...)
	return p.err
}

func TestRefusedIsWrittenKeyedByOrganizationEvenWhenTheClientHasGone(t *testing.T) {
	p := &pub{}
	r := New(p, "kyc.org-audit", time.Second, logging.Discard())
	member := principal.Principal{Kind: principal.KindAPIKey, OrgID: "org_1", Env: principal.EnvTest, UserID: "usr_1",
		MemberRole: principal.MemberViewer, ClientIP: "198.51.100.7"}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the client hung up
	r.Refused(ctx, member, "endpoint.create", "POST", "/api/v1/webhooks")
	if len(p.msgs) != 1 || !p.live {
		t.Fatalf("written %d, with a live context: %v", len(p.msgs), p.live)
	}
	m := p.msgs[0]
	var e struct {
		Type, OrgID, Environment string
		Data                     orgaudit.Action
	}
	if err := json.Unmarshal(m.Value, &e); err != nil {
		t.Fatal(err)
	}
	if m.Topic != "kyc.org-audit" || string(m.Key) != "org_1" || e.Type != orgaudit.Type || e.OrgID != "org_1" || e.Environment != "test" ||
		e.Data.ActorID != "usr_1" || e.Data.MemberRole != "viewer" || e.Data.Outcome != orgaudit.Refused || e.Data.Action != "endpoint.create" || e.Data.IP != "198.51.100.7" {
		t.Fatalf("event %s", m.Value)
	}
	// A failed write is only logged.
	p.err = errors.New("broker down")
	r.Refused(context.Background(), member, "endpoint.secret_read", "GET", "/api/v1/webhooks/whk_1/secret")
}
