package main

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/bench/load"
	"github.com/kycfield/kyc/e2e/harness"
)

// backlog is the work the platform has accepted and not yet done, as an
// operator sees it: each process's /metrics (kyc_consumer_lag: messages
// of its consumers' partitions not applied yet, asked of the broker at
// the scrape; kyc_outbox_backlog: events committed and not yet published) and the reports queued for rendering
// (reporting's renders table, which no gauge shows).
type backlog struct {
	lag, lagLargest int64 // over every consumer of every service; the largest one consumer's
	brokerLag       int64 // the same, as the broker's committed offsets say (brokerLag)
	outbox          int64
	renders         int64
	lagBy           map[string]int64 // service/consumer -> lag, the consumers with some left
}

func (b backlog) zero() bool { return b.lag == 0 && b.outbox == 0 && b.renders == 0 }

func (b backlog) String() string {
	s := fmt.Sprintf("consumer lag %d (largest %d; at the broker %d), outbox %d, renders queued %d", b.lag, b.lagLargest, b.brokerLag, b.outbox, b.renders)
	if len(b.lagBy) > 0 {
		s += fmt.Sprintf("; lag by consumer %v", b.lagBy)
	}
	return s
}

// gauges reads the backlog; it keeps one connection to reporting's
// database, so that sampling every second costs PostgreSQL little.
type gauges struct {
	urls    map[string]string
	http    *http.Client
	reports *pgx.Conn
	broker  brokerLag
}

func newGauges(p *harness.Platform) *gauges {
	c, err := pgx.Connect(context.Background(), p.DatabaseURLs["reporting"])
	if err != nil {
		panic(fmt.Sprintf("reporting database: %v", err))
	}
	return &gauges{urls: p.URLs, http: &http.Client{Timeout: 10 * time.Second}, reports: c, broker: newBrokerLag(p.Bus)}
}

func (g *gauges) close() { _ = g.reports.Close(context.Background()) }

// read scrapes every service; a service that does not answer makes the
// sample an error rather than a false zero.
func (g *gauges) read() (backlog, error) {
	var b backlog
	for name, u := range g.urls {
		text, err := load.Metrics(g.http, u)
		if err != nil {
			return b, fmt.Errorf("%s /metrics: %w", name, err)
		}
		lags, err := harness.GaugeSeries(text, "kyc_consumer_lag")
		if err != nil {
			return b, fmt.Errorf("%s /metrics: %w", name, err)
		}
		for consumer, v := range lags {
			lag := int64(v)
			b.lag += lag
			b.lagLargest = max(b.lagLargest, lag)
			if lag > 0 {
				if b.lagBy == nil {
					b.lagBy = map[string]int64{}
				}
				b.lagBy[name+"/"+consumer] = lag
			}
		}
		out, _, err := harness.GaugeSum(text, "kyc_outbox_backlog")
		if err != nil {
			return b, fmt.Errorf("%s /metrics: %w", name, err)
		}
		b.outbox += int64(out)
	}
	var err error
	if b.brokerLag, err = g.broker.read(context.Background()); err != nil {
		return b, fmt.Errorf("consumer lag at the broker: %w", err)
	}
	err = g.reports.QueryRow(context.Background(), `SELECT count(*) FROM renders`).Scan(&b.renders)
	return b, err
}

// reportsPerCustomer says how many customers have a report and how many
// have more than one version (a sandbox customer ends once, so one).
func (g *gauges) reportsPerCustomer() (withReport, extra int, err error) {
	err = g.reports.QueryRow(context.Background(),
		`SELECT count(DISTINCT customer_id), count(*) - count(DISTINCT customer_id) FROM reports`).Scan(&withReport, &extra)
	return withReport, extra, err
}

// waitDrained samples until the backlog is zero or limit passes, and
// returns the last sample.
func (g *gauges) waitDrained(limit time.Duration) (backlog, error) {
	deadline := time.Now().Add(limit)
	for {
		b, err := g.read()
		if (err == nil && b.zero()) || time.Now().After(deadline) {
			return b, err
		}
		time.Sleep(250 * time.Millisecond)
	}
}
