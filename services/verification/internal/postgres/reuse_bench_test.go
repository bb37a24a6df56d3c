package postgres_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/kycfield/kyc/pkg/outbox"
	"github.com/kycfield/kyc/pkg/pgtest"
	"github.com/kycfield/kyc/services/verification/internal/postgres"
	"github.com/kycfield/kyc/services/verification/internal/verification"
	"github.com/kycfield/kyc/services/verification/migrations"
)

// BenchmarkReuseLookup1M is the PHOTO_REUSED lookup of one new photo
// against 1,000,000 stored photo hashes of 500 organizations, as an
// upload makes it (its own transaction, the SHA-256 or any of four
// bands equal, then the bits compared). One lookup in ten is a real
// photo re-encoded (its hash 2 bits off); the rest are new photos. It
// reports p50 and p99 over every lookup of the run.
//
//	go test -run x -bench ReuseLookup1M -benchtime 2000x ./internal/postgres/
func BenchmarkReuseLookup1M(b *testing.B) {
	pool, _ := pgtest.NewDB(b, migrations.Set(), outbox.Migration())
	ctx := context.Background()
	start := time.Now()
	if _, err := pool.Exec(ctx, `INSERT INTO photo_hashes (photo_id, address_id, customer_id, org_id, env, sha256, phash,
			band0, band1, band2, band3, created_at)
		SELECT 'pho_' || i, 'adr_' || (i / 2), 'cus_' || (i / 2), 'org_' || (i % 500), 'live', sha256(i::text::bytea), h,
			(h >> 48) & 65535, (h >> 32) & 65535, (h >> 16) & 65535, h & 65535, now()
		FROM (SELECT i, (floor(random() * 4294967296)::bigint << 32) | floor(random() * 4294967296)::bigint AS h
		      FROM generate_series(1, 1000000) i) s`); err != nil {
		b.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `ANALYZE photo_hashes`); err != nil {
		b.Fatal(err)
	}
	b.Logf("seeded 1,000,000 hashes in %s", time.Since(start).Round(time.Second))
	var stored []int64
	rows, _ := pool.Query(ctx, `SELECT phash FROM photo_hashes ORDER BY random() LIMIT 1000`)
	for rows.Next() {
		var h int64
		_ = rows.Scan(&h)
		stored = append(stored, h)
	}
	if rows.Err() != nil || len(stored) != 1000 {
		b.Fatalf("stored hashes: %v", rows.Err())
	}
	store := postgres.New(pool, "verification-events", nil)
	r := rand.New(rand.NewPCG(1, 2))
	var took []time.Duration
	found := 0
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		h := r.Uint64()
		if i%10 == 0 {
			h = uint64(stored[r.IntN(len(stored))]) ^ 1<<r.IntN(64) ^ 1<<r.IntN(64)
		}
		sha := make([]byte, 32)
		for k := range sha {
			sha[k] = byte(r.Uint32())
		}
		t0 := time.Now()
		err := store.Atomic(ctx, func(tx verification.Tx) error {
			c, err := tx.HashCandidates(ctx, "live", verification.PhotoHash{SHA256: sha, Perceptual: &h}, 50)
			for _, s := range c {
				if s.Perceptual != nil && bitsApart(*s.Perceptual, h) <= 4 {
					found++
					break
				}
			}
			return err
		})
		took = append(took, time.Since(t0))
		if err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(took[len(took)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(found)/float64(len(took)), "found/op")
}

func bitsApart(a, b uint64) int {
	n := 0
	for x := a ^ b; x != 0; x &= x - 1 {
		n++
	}
	return n
}
