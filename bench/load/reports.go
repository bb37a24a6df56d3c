package load

import (
	"context"
	"log"
	"time"

	"github.com/jackc/pgx/v5"
)

// WaitReports polls the reporting database at url until want reports are
// stored (rendering trails VERIFIED, so a measure of each customer's
// whole pipeline, or one that must not overlap renders, waits for them),
// or until limit has passed. It returns when it stopped and how many
// there were. One connection, so the polling costs PostgreSQL little.
func WaitReports(url string, want int, limit time.Duration) (time.Time, int) {
	ctx := context.Background()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close(ctx)
	deadline := time.Now().Add(limit)
	for {
		var n int
		if err := c.QueryRow(ctx, `SELECT count(*) FROM reports`).Scan(&n); err != nil {
			log.Fatal(err)
		}
		if n >= want || time.Now().After(deadline) {
			return time.Now(), n
		}
		time.Sleep(50 * time.Millisecond)
	}
}
