package postgres

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/pkg/pgdb"
	"github.com/kycfield/kyc/services/webhook/internal/webhook"
)

// claimLockKey is the advisory lock serialising claims ("kyc_whc").
const claimLockKey = 0x6b79635f776863

// earlierStage finds, for the candidate delivery d, a stage event of the
// same customer stored before d's message whose delivery to the same
// endpoint has not ended (pending, retrying, or in flight). While one
// exists d waits: each endpoint gets a customer's stage events one at a
// time, in order; a delivery that is exhausted (or succeeded) lets the
// next one go. It reads a customer's few messages through
// events_by_customer and each one's delivery through the (endpoint_id,
// message_id) key; other types skip it.
const earlierStage = `SELECT 1 FROM messages m
	JOIN messages pm ON pm.org_id = m.org_id AND pm.env = m.env AND pm.customer_id = m.customer_id
		AND (pm.created_at, pm.id) < (m.created_at, m.id) AND pm.event_type = ANY($4)
	JOIN deliveries p ON p.endpoint_id = d.endpoint_id AND p.message_id = pm.id AND p.status IN ('pending', 'retrying')
	WHERE m.id = d.message_id AND m.customer_id IS NOT NULL`

// Job is a claimed delivery with what sending it needs.
type Job struct {
	Delivery webhook.Delivery
	Manual   bool
	Endpoint webhook.Endpoint
	Message  webhook.Message
	// Traceparent is the trace of the event that made the message: the
	// attempt joins it.
	Traceparent string
}

// Claim leases up to n due deliveries for lease. Each endpoint gets at
// most perEndpoint in flight across every replica: leases are counted in
// the database, and claims are serialised by a transaction-scoped
// advisory lock, so each claim's count (a statement snapshot taken after
// the lock) sees every earlier claim's leases; two replicas can never
// both fill the same endpoint's room. A claim takes about a millisecond,
// so the lock costs little. Endpoints are taken in the order of their
// oldest due delivery, so a slow endpoint's backlog never hides another
// endpoint's due deliveries. A customer's stage events wait for the
// earlier ones to the same endpoint (earlierStage). Only the deliveries
// chosen are locked: locking every endpoint's room first (up to
// perEndpoint rows each, a tuple write apiece) and keeping n of them made
// a claim cost as much as the whole backlog's room (BENCHMARKS.md 18i).
func (s *Store) Claim(ctx context.Context, n, perEndpoint int, lease time.Duration) ([]Job, error) {
	b := &pgx.Batch{}
	b.Queue(`BEGIN`)
	b.Queue(`SET LOCAL synchronous_commit TO OFF`)
	// A generic plan of the claim (what a prepared statement switches to
	// after five runs) cannot see how small each endpoint's room and n
	// are; planned for its parameters, it stays a few milliseconds with
	// thousands of deliveries due (BENCHMARKS.md 18o).
	b.Queue(`SET LOCAL plan_cache_mode TO force_custom_plan`)
	b.Queue(`SELECT pg_advisory_xact_lock($1)`, claimLockKey)
	b.Queue(`
		WITH room AS (
			SELECT e.id, $2 - (SELECT count(*) FROM deliveries f WHERE f.endpoint_id = e.id AND f.lease_until > now()) AS room
			FROM endpoints e
			WHERE e.enabled AND e.deleted_at IS NULL
			  AND EXISTS (SELECT 1 FROM deliveries d WHERE d.endpoint_id = e.id AND d.next_attempt_at <= now())
		), candidates AS (
			SELECT x.id FROM room, LATERAL (
				SELECT d.id, d.next_attempt_at FROM deliveries d
				WHERE d.endpoint_id = room.id AND d.next_attempt_at <= now() AND (d.lease_until IS NULL OR d.lease_until < now())
				  AND (d.event_type <> ALL($4) OR NOT EXISTS (`+earlierStage+`))
				ORDER BY d.next_attempt_at LIMIT greatest(room.room, 0)) x
			ORDER BY x.next_attempt_at LIMIT $1
		), picked AS (
			SELECT d.id FROM deliveries d WHERE d.id IN (SELECT id FROM candidates)
			  AND (d.lease_until IS NULL OR d.lease_until < now())
			FOR UPDATE SKIP LOCKED
		), claimed AS (
			UPDATE deliveries d SET lease_until = now() + make_interval(secs => $3)
			FROM picked WHERE d.id = picked.id
			RETURNING d.id, d.endpoint_id, d.org_id, d.env, d.message_id, d.event_type, d.status, d.attempts, d.scheduled, d.manual, d.created_at
		)
		SELECT c.id, c.endpoint_id, c.org_id, c.env, c.message_id, c.event_type, c.status, c.attempts, c.scheduled, c.manual, c.created_at,
			m.body, m.traceparent, `+prefixed("e.")+`
		FROM claimed c JOIN messages m ON m.id = c.message_id JOIN endpoints e ON e.id = c.endpoint_id`,
		n, perEndpoint, lease.Seconds(), webhook.Staged)
	b.Queue(`COMMIT`)
	br := s.Pool().SendBatch(ctx, b)
	defer br.Close()
	for range 4 {
		if _, err := br.Exec(); err != nil {
			return nil, fmt.Errorf("claim: %w", err)
		}
	}
	rows, err := br.Query()
	if err != nil {
		return nil, fmt.Errorf("claim: %w", err)
	}
	out, err := s.scanJobs(rows)
	if err != nil {
		return nil, err
	}
	if _, err := br.Exec(); err != nil {
		return nil, fmt.Errorf("claim: commit: %w", err)
	}
	return out, nil
}

func (s *Store) scanJobs(rows pgx.Rows) ([]Job, error) {
	defer rows.Close()
	var out []Job
	for rows.Next() {
		var j Job
		d := &j.Delivery
		var sealed sealedSecrets
		dest := append([]any{&d.ID, &d.EndpointID, &d.OrgID, &d.Env, &d.MessageID, &d.EventType, &d.Status, &d.Attempts, &d.Scheduled,
			&j.Manual, &d.CreatedAt, &j.Message.Body, &j.Traceparent}, endpointDest(&j.Endpoint, &sealed)...)
		if err := rows.Scan(dest...); err != nil {
			return nil, fmt.Errorf("claim: %w", err)
		}
		if err := s.open(&j.Endpoint, sealed); err != nil {
			return nil, fmt.Errorf("claim: endpoint %s: %w", d.EndpointID, err)
		}
		j.Message.ID, j.Message.Type, j.Message.OrgID, j.Message.Env = d.MessageID, d.EventType, d.OrgID, d.Env
		out = append(out, j)
	}
	return out, rows.Err()
}

// Complete records attempt a of job j and moves the delivery on as the
// schedule says, in one round trip. A failure starts (or continues) the
// endpoint's failure streak; a 410 Gone, or a streak longer than
// disableAfter, disables it and publishes endpoint.disabled through the
// outbox. A success ends the streak.
//
// The commit does not wait for the WAL flush (synchronous_commit off):
// a database crash may forget the last attempts, and the deliveries are
// then sent again, which at-least-once delivery allows; it never loses
// one. The schedule's inputs (messages, deliveries) are committed
// durably by the consumer.
func (s *Store) Complete(ctx context.Context, j Job, a webhook.Attempt, sched webhook.Schedule, disableAfter time.Duration) error {
	now := a.At
	o := j.Delivery.After(a, j.Manual, sched, now)
	a.Number = j.Delivery.Attempts + 1
	b := &pgx.Batch{}
	b.Queue(`BEGIN`)
	b.Queue(`SET LOCAL synchronous_commit TO OFF`)
	// A stage delivery that ends lets its customer's next one go (see
	// unfinishedStage), under the customer's stage lock.
	staged := slices.Contains(webhook.Staged, j.Delivery.EventType)
	ended := o.Status == webhook.StatusSucceeded || o.Status == webhook.StatusExhausted
	pre := 2 // BEGIN and SET LOCAL
	if staged {
		b.Queue(`SELECT pg_advisory_xact_lock(hashtextextended('webhook-stage/' || customer_id, 0)) FROM messages
			WHERE id = $1 AND customer_id IS NOT NULL`, j.Delivery.MessageID)
		pre++
	}
	// The endpoint's row first, then the delivery's: the order in which
	// an endpoint's update (disabling parks its deliveries) takes them, so
	// that the two never deadlock and abort one another.
	if a.Succeeded {
		b.Queue(`UPDATE endpoints SET failing_since = NULL WHERE id = $1 AND failing_since IS NOT NULL RETURNING now()`, j.Endpoint.ID)
	} else {
		b.Queue(`UPDATE endpoints SET failing_since = coalesce(failing_since, $2) WHERE id = $1 RETURNING failing_since`, j.Endpoint.ID, now)
	}
	b.Queue(`INSERT INTO attempts (delivery_id, number, trigger, at, status_code, latency_ms, response, error, succeeded)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING`,
		j.Delivery.ID, a.Number, a.Trigger, a.At, a.StatusCode, a.LatencyMS, a.Response, a.Error, a.Succeeded)
	// A resend asked for while this attempt was in flight (manual set
	// since the claim) stays due now rather than being overwritten.
	b.Queue(`UPDATE deliveries SET status = $2, attempts = $3, scheduled = $4,
		next_attempt_at = CASE WHEN manual AND NOT $7 THEN now() ELSE $5 END, manual = manual AND NOT $7,
		lease_until = NULL, updated_at = $6 WHERE id = $1`, j.Delivery.ID, o.Status, a.Number, o.Scheduled, o.Next, now, j.Manual)
	post := 3 // the attempt, the delivery and COMMIT
	if staged && ended {
		b.Queue(`UPDATE deliveries SET next_attempt_at = now(), updated_at = now() WHERE next_attempt_at IS NULL AND id = (
			SELECT p.id FROM messages m
			JOIN messages nm ON nm.org_id = m.org_id AND nm.env = m.env AND nm.customer_id = m.customer_id
				AND (nm.created_at, nm.id) > (m.created_at, m.id) AND nm.event_type = ANY($3)
			JOIN deliveries p ON p.endpoint_id = $2 AND p.message_id = nm.id AND p.status IN ('pending', 'retrying')
			WHERE m.id = $1 ORDER BY nm.created_at, nm.id LIMIT 1)`, j.Delivery.MessageID, j.Endpoint.ID, webhook.Staged)
		post++
	}
	b.Queue(`COMMIT`)
	br := s.Pool().SendBatch(ctx, b)
	var since time.Time
	err := func() error {
		defer br.Close()
		for range pre {
			if _, err := br.Exec(); err != nil {
				return err
			}
		}
		if err := br.QueryRow().Scan(&since); err != nil && !pgdb.IsNoRows(err) {
			return err
		}
		for range post {
			if _, err := br.Exec(); err != nil {
				return err
			}
		}
		return nil
	}()
	if err != nil || a.Succeeded {
		return err
	}
	switch {
	case a.StatusCode == 410:
		return s.Disable(ctx, j.Endpoint, webhook.DisabledGone, now)
	case now.Sub(since) >= disableAfter:
		return s.Disable(ctx, j.Endpoint, webhook.DisabledFailing, now)
	}
	return nil
}

// Disable turns the endpoint off for reason, parks its deliveries and
// publishes endpoint.disabled, once: an endpoint already disabled is
// left as it is.
func (s *Store) Disable(ctx context.Context, e webhook.Endpoint, reason string, now time.Time) error {
	return pgx.BeginFunc(ctx, s.Pool(), func(tx pgx.Tx) error { return s.disable(ctx, tx, e, reason, now) })
}

func (s *Store) disable(ctx context.Context, tx pgx.Tx, e webhook.Endpoint, reason string, now time.Time) error {
	tag, err := tx.Exec(ctx, `UPDATE endpoints SET enabled = false, disabled_reason = $2, updated_at = $3 WHERE id = $1 AND enabled`,
		e.ID, reason, now)
	if err != nil || tag.RowsAffected() == 0 {
		return err
	}
	if err := reschedule(ctx, tx, e.ID, false); err != nil {
		return err
	}
	e.Enabled, e.DisabledReason, e.UpdatedAt = false, reason, now
	return s.Emit(ctx, tx, e)
}

// Release gives claimed deliveries back unattempted (the process is
// stopping), so another replica or the next start sends them at once.
func (s *Store) Release(ctx context.Context, deliveryIDs ...string) error {
	_, err := s.Pool().Exec(ctx, `UPDATE deliveries SET lease_until = NULL WHERE id = ANY($1)`, deliveryIDs)
	return err
}

func prefixed(p string) string {
	return p + "id, " + p + "org_id, " + p + "env, " + p + "url, " + p + "description, " + p + "events, " + p + "enabled, " +
		p + "disabled_reason, " + p + "secret, " + p + "previous_secret, " + p + "previous_until, " + p + "failing_since, " +
		p + "created_at, " + p + "updated_at"
}
