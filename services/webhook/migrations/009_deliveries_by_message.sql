---- tern: disable-tx ----
-- The retention sweep's "no delivery refers to this message" check.
-- Built CONCURRENTLY (one statement per file: it cannot share a
-- transaction), so deploying it never blocks the consumer's inserts.
CREATE INDEX CONCURRENTLY IF NOT EXISTS deliveries_by_message ON deliveries (message_id);
