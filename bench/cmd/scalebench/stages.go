package main

import (
	"context"
	"log"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/e2e/harness"
)

// stage is one step every customer of a burst goes through, counted in the
// database of the service that does it.
type stage struct {
	name, service, query string
}

// stages, in the order a sandbox customer passes them. Their completion
// times show where a burst waits: the first stage to finish late is the
// bottleneck of the pipeline.
var stages = []stage{
	{"customer.created published (customer relay)", "customer",
		`SELECT count(*) FROM outbox WHERE event_type = 'customer.created' AND published_at IS NOT NULL`},
	{"job opened (verification consumer)", "verification", `SELECT count(*) FROM jobs`},
	{"VERIFIED (sandbox worker)", "verification", `SELECT count(*) FROM jobs WHERE status = 'VERIFIED'`},
	{"report rendered (reporting consumer)", "reporting", `SELECT count(*) FROM reports`},
}

// watch polls the stages' counts every 25 ms from start until each reaches
// want, and returns when each did (offsets from start); stop ends it early.
func watch(p *harness.Platform, want int, start time.Time, stop <-chan struct{}) func() []time.Duration {
	done := make([]time.Duration, len(stages))
	var wg sync.WaitGroup
	for i, s := range stages {
		wg.Go(func() {
			c, err := pgx.Connect(context.Background(), p.DatabaseURLs[s.service])
			if err != nil {
				log.Fatal(err)
			}
			defer c.Close(context.Background())
			for {
				var n int
				if err := c.QueryRow(context.Background(), s.query).Scan(&n); err != nil {
					log.Fatalf("%s: %v", s.name, err)
				}
				if n >= want {
					done[i] = time.Since(start)
					return
				}
				select {
				case <-stop:
					return
				case <-time.After(25 * time.Millisecond):
				}
			}
		})
	}
	return func() []time.Duration { wg.Wait(); return done }
}
