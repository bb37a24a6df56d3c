---- tern: disable-tx ----
-- Keyset pages of GET /events?type=...
-- Built CONCURRENTLY (one statement per file: it cannot share a
-- transaction), so deploying it never blocks the consumer's inserts.
CREATE INDEX CONCURRENTLY IF NOT EXISTS events_by_type ON messages (org_id, env, event_type, created_at DESC, id DESC) WHERE event_type <> 'webhook.test';
