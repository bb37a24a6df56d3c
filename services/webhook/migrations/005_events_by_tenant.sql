---- tern: disable-tx ----
-- Keyset pages of GET /events, newest first (the API never lists webhook.test).
-- Built CONCURRENTLY (one statement per file: it cannot share a
-- transaction), so deploying it never blocks the consumer's inserts.
CREATE INDEX CONCURRENTLY IF NOT EXISTS events_by_tenant ON messages (org_id, env, created_at DESC, id DESC) WHERE event_type <> 'webhook.test';
