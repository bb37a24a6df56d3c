package postgres

import (
	"context"
	"encoding/json"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/services/verification/internal/photohash"
	"github.com/kycfield/kyc/services/verification/internal/verification"
)

// HashCandidates implements verification.Tx: one indexed lookup (the
// SHA-256, or any band of the perceptual hash equal and the bits within
// photohash.MaxDistance).
func (t *txn) HashCandidates(ctx context.Context, env string, h verification.PhotoHash, limit int) ([]verification.StoredHash, error) {
	var b [4]*int32
	var ph *int64
	if h.Perceptual != nil {
		v := int64(*h.Perceptual)
		ph = &v
		bands := photohash.Bands(*h.Perceptual)
		for i := range bands {
			b[i] = &bands[i]
		}
	}
	// The bits are compared here too, so that the limit counts matches,
	// not the 15 or so photos that share each band by chance at 1M.
	rows, err := t.tx.Query(ctx, `SELECT photo_id, address_id, org_id, env, sha256, phash FROM photo_hashes
		WHERE env = $1 AND (sha256 = $2 OR ((band0 = $3 OR band1 = $4 OR band2 = $5 OR band3 = $6)
			AND bit_count((phash # $7)::bit(64)) <= $8))
		ORDER BY created_at LIMIT $9`, env, h.SHA256, b[0], b[1], b[2], b[3], ph, photohash.MaxDistance, limit)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (verification.StoredHash, error) {
		var s verification.StoredHash
		var ph *int64
		err := r.Scan(&s.PhotoID, &s.AddressID, &s.OrgID, &s.Env, &s.SHA256, &ph)
		if ph != nil {
			u := uint64(*ph)
			s.Perceptual = &u
		}
		return s, err
	})
}

// InsertPhotoHash implements verification.Tx.
func (t *txn) InsertPhotoHash(ctx context.Context, j verification.Job, p verification.Photo, matches []verification.PhotoMatch) error {
	var ph *int64
	var b [4]*int32
	if p.Hash.Perceptual != nil {
		v := int64(*p.Hash.Perceptual) // the 64 bits as Postgres's signed bigint
		ph = &v
		bands := photohash.Bands(*p.Hash.Perceptual)
		for i := range bands {
			b[i] = &bands[i]
		}
	}
	batch := &pgx.Batch{}
	batch.Queue(`INSERT INTO photo_hashes (photo_id, address_id, customer_id, org_id, env, sha256, phash, band0, band1, band2, band3, created_at)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12)`, p.ID, j.AddressID, j.CustomerID, j.OrgID, j.Env, p.Hash.SHA256, ph,
		b[0], b[1], b[2], b[3], p.CreatedAt)
	for _, m := range matches {
		batch.Queue(`INSERT INTO photo_matches (photo_id, address_id, org_id, env, matched_photo_id, matched_address_id, matched_org_id,
			matched_env, kind, distance, created_at) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11) ON CONFLICT DO NOTHING`,
			m.PhotoID, m.AddressID, m.OrgID, m.Env, m.MatchedPhotoID, m.MatchedAddressID, m.MatchedOrgID, m.MatchedEnv, m.Kind, m.Distance,
			orNowTime(p.CreatedAt))
	}
	return t.tx.SendBatch(ctx, batch).Close()
}

func orNowTime(t time.Time) time.Time {
	if t.IsZero() {
		return time.Now().UTC()
	}
	return t
}

// InsertTrail implements verification.Tx.
func (t *txn) InsertTrail(ctx context.Context, tr verification.VisitTrail) error {
	samples, _ := json.Marshal(tr.Samples)
	_, err := t.tx.Exec(ctx, `INSERT INTO visit_trails (address_id, agent_id, outcome, check_in, completion, seconds_on_site, samples,
		completed_at) VALUES ($1,$2,$3,$4,$5,$6,$7,$8) ON CONFLICT DO NOTHING`, tr.AddressID, tr.AgentID, tr.Outcome, jsonOrNil(tr.CheckIn),
		jsonOrNil(&tr.Completion), tr.SecondsOnSite, samples, tr.Completion.At)
	return err
}

// Evidence implements verification.Store.
func (s *Store) Evidence(ctx context.Context, addressID string) (verification.Evidence, error) {
	var ev verification.Evidence
	err := s.snapshot(ctx, func(tx pgx.Tx) error {
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM jobs WHERE address_id = $1`, addressID).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return verification.ErrTaskNotFound
		}
		rows, err := tx.Query(ctx, `SELECT address_id, agent_id, outcome, check_in, completion, seconds_on_site, samples
			FROM visit_trails WHERE address_id = $1 ORDER BY completed_at`, addressID)
		if err != nil {
			return err
		}
		ev.Trails, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (verification.VisitTrail, error) {
			var tr verification.VisitTrail
			var checkIn, completion, samples []byte
			if err := r.Scan(&tr.AddressID, &tr.AgentID, &tr.Outcome, &checkIn, &completion, &tr.SecondsOnSite, &samples); err != nil {
				return tr, err
			}
			var err error
			if tr.CheckIn, err = optional[verification.CheckInRecord](checkIn); err != nil {
				return tr, err
			}
			if err := json.Unmarshal(completion, &tr.Completion); err != nil {
				return tr, err
			}
			return tr, json.Unmarshal(samples, &tr.Samples)
		})
		if err != nil {
			return err
		}
		rows, err = tx.Query(ctx, `SELECT photo_id, address_id, org_id, env, matched_photo_id, matched_address_id, matched_org_id,
			matched_env, kind, distance FROM photo_matches WHERE address_id = $1 OR matched_address_id = $1 ORDER BY created_at`, addressID)
		if err != nil {
			return err
		}
		ev.Matches, err = pgx.CollectRows(rows, pgx.RowToStructByPos[verification.PhotoMatch])
		return err
	})
	return ev, err
}
