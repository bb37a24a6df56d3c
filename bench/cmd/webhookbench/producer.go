package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/ids"
	"github.com/kycfield/kyc/pkg/kafkabus"
	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/pkg/outbox"
	"github.com/kycfield/kyc/pkg/pgdb"
	"github.com/kycfield/kyc/pkg/pgtest"
	"github.com/kycfield/kyc/pkg/principal"
)

type tenant struct {
	org     string
	hanging bool
}

type sentEvent struct {
	id        string
	committed time.Time
	hanging   bool
}

func countHanging(ts []tenant) int {
	n := 0
	for _, t := range ts {
		if t.hanging {
			n++
		}
	}
	return n
}

// register creates one endpoint per organization through the webhook
// service's API, with a principal signed as the gateway would.
func register(base string, secrets []string, receiver string, orgs, hang int) ([]tenant, error) {
	signer, err := principal.NewSigner(secrets, time.Minute)
	if err != nil {
		return nil, err
	}
	out := make([]tenant, orgs)
	for i := range out {
		out[i] = tenant{org: ids.New("org"), hanging: hang > 0 && i%hang == hang-1}
		path := "/ok/"
		if out[i].hanging {
			path = "/hang/"
		}
		body, _ := json.Marshal(map[string]any{"url": receiver + path + out[i].org, "events": []string{"verification.completed"}})
		req, _ := http.NewRequest("POST", base+"/api/v1/webhooks", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		p := principal.Principal{Kind: principal.KindAPIKey, OrgID: out[i].org, Env: principal.EnvTest, KeyID: "bench",
			Scopes: []string{principal.ScopeWrite}}
		req.Header.Set(principal.Header, signer.Sign(p, "POST", "/api/v1/webhooks"))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			return nil, fmt.Errorf("register: %d", resp.StatusCode)
		}
	}
	return out, nil
}

// producer commits verification events to an outbox, as the
// verification service does, and runs the platform's relay on it.
type producer struct {
	pool  *pgxpool.Pool
	topic string
	close func()
}

func newProducer(ctx context.Context, bus kafkabus.Config) (*producer, error) {
	u, drop, err := pgtest.Create(ctx, "webhookbench_producer")
	if err != nil {
		return nil, err
	}
	if err := pgdb.Migrate(ctx, u, outbox.Migration()); err != nil {
		return nil, err
	}
	pool, err := pgdb.Open(ctx, u, 16)
	if err != nil {
		return nil, err
	}
	w := kafkabus.NewWriter(bus)
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = outbox.NewRelay(pool, w, logging.New("relay", "warn")).Run(rctx) }()
	return &producer{pool: pool, topic: bus.Topic(event.TopicVerification), close: func() {
		cancel()
		<-done
		_ = w.Close()
		pool.Close()
		drop()
	}}, nil
}

// relayed prints how long the outbox relay took from each event's
// commit (its row's insert) to marking it published after Kafka's ack:
// the first part of the "event -> scheduled" stage.
func (p *producer) relayed(ctx context.Context, since time.Time) error {
	var p50, p99 float64
	err := p.pool.QueryRow(ctx, `SELECT
		coalesce(percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM published_at - created_at)), 0),
		coalesce(percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM published_at - created_at)), 0)
		FROM outbox WHERE created_at >= $1`, since).Scan(&p50, &p99)
	if err != nil {
		return err
	}
	fmt.Printf("  stages: event -> published (outbox relay, Kafka ack) p50 %.1f ms p99 %.1f ms\n", p50*1000, p99*1000)
	return nil
}

// commit writes one verification.completed event for tn and returns it
// with the time its transaction committed.
func (p *producer) commit(ctx context.Context, tn tenant) (sentEvent, error) {
	e, err := event.New("verification.completed", tn.org, "test", status(ids.New("cus"), ids.New("adr")))
	if err != nil {
		return sentEvent{}, err
	}
	err = pgx.BeginFunc(ctx, p.pool, func(tx pgx.Tx) error {
		return outbox.Add(ctx, tx, outbox.Message{Topic: p.topic, Key: e.ID, Event: e})
	})
	return sentEvent{id: e.ID, committed: time.Now(), hanging: tn.hanging}, err
}

// paced commits rate events a second for d, round-robin over tenants.
// Each tick commits every event due by then, so a tick the scheduler
// delays (the machine is busy) does not lower the offered rate.
func (p *producer) paced(ctx context.Context, ts []tenant, rate int, d time.Duration) ([]sentEvent, error) {
	var mu sync.Mutex
	var out []sentEvent
	var firstErr error
	var wg sync.WaitGroup
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	start := time.Now()
	total := int(d.Seconds() * float64(rate))
	for i := 0; i < total; {
		<-tick.C
		due := min(int(time.Since(start).Seconds()*float64(rate)), total)
		for ; i < due; i++ {
			wg.Add(1)
			go func(tn tenant) {
				defer wg.Done()
				s, err := p.commit(ctx, tn)
				mu.Lock()
				defer mu.Unlock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
				out = append(out, s)
			}(ts[i%len(ts)])
		}
	}
	wg.Wait()
	return out, firstErr
}

// burst commits n events in batches of 100, as fast as it can.
func (p *producer) burst(ctx context.Context, ts []tenant, n int) ([]sentEvent, error) {
	out := make([]sentEvent, 0, n)
	for len(out) < n {
		var batch []sentEvent
		err := pgx.BeginFunc(ctx, p.pool, func(tx pgx.Tx) error {
			var msgs []outbox.Message
			for i := 0; i < 100 && len(out)+len(msgs) < n; i++ {
				tn := ts[(len(out)+i)%len(ts)]
				e, err := event.New("verification.completed", tn.org, "test", status(ids.New("cus"), ids.New("adr")))
				if err != nil {
					return err
				}
				msgs = append(msgs, outbox.Message{Topic: p.topic, Key: e.ID, Event: e})
				batch = append(batch, sentEvent{id: e.ID, hanging: tn.hanging})
			}
			return outbox.Add(ctx, tx, msgs...)
		})
		if err != nil {
			return out, err
		}
		now := time.Now()
		for i := range batch {
			batch[i].committed = now
		}
		out = append(out, batch...)
	}
	return out, nil
}

// status is a verification.completed payload of the size a real one has
// (one address, two photos, the timeline).
func status(customerID, addressID string) map[string]any {
	photo := func(tag string) map[string]any {
		return map[string]any{"url": "https://api.example.com/api/v1/verification/" + customerID + "/photos/pho_" + tag,
			"tag": tag, "capturedAt": "2026-11-23T10:00:00.000Z"}
	}
	step := func(s string) map[string]any {
		return map[string]any{"status": s, "at": "2026-11-23T10:00:00.000Z", "by": "system"}
	}
	return map[string]any{"customerId": customerID, "customerName": "Ngozi Okafor", "overallStatus": "VERIFIED", "loanId": "LN-2026-001",
		"loanType": "PERSONAL", "verificationDate": "2026-11-23T10:00:00.000Z", "documents": []any{},
		"addresses": []any{map[string]any{"id": addressID, "label": nil, "streetNumber": "12", "streetName": "Adeola Odeku Street",
			"landmark": "Opposite the bank", "city": "Victoria Island", "lga": nil, "state": "Lagos", "country": "Nigeria", "notes": nil,
			"status": "VERIFIED", "verificationData": map[string]any{"verifiedAddress": "12 Adeola Odeku Street, Victoria Island, Lagos",
				"verifiedAt": "2026-11-23T10:00:00.000Z", "verifiedLatitude": 6.4281, "verifiedLongitude": 3.4219,
				"agentNotes": "Met the customer at home; blue gate.", "agent": map[string]any{"id": "agt_sandbox", "name": "Tunde Bakare"},
				"gpsAccuracyMeters": 8.5, "flags": []string{}, "photoCount": 2,
				"verificationPhotos": []any{photo("building_front"), photo("street_view")}, "attempts": []any{},
				"timeline": []any{step("PENDING"), step("ASSIGNED"), step("IN_PROGRESS"), step("VERIFIED")}}}}}
}
