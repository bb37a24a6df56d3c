---- tern: disable-tx ----
-- Keyset pages of GET /events?customerId=... (with or without type: one customer has few events).
-- Built CONCURRENTLY (one statement per file: it cannot share a
-- transaction), so deploying it never blocks the consumer's inserts.
CREATE INDEX CONCURRENTLY IF NOT EXISTS events_by_customer ON messages (org_id, env, customer_id, created_at DESC, id DESC) WHERE customer_id IS NOT NULL;
