---- tern: disable-tx ----
-- The retention sweep finds messages past the retention window in batches.
-- Built CONCURRENTLY (one statement per file: it cannot share a
-- transaction), so deploying it never blocks the consumer's inserts.
CREATE INDEX CONCURRENTLY IF NOT EXISTS messages_by_age ON messages (created_at);
