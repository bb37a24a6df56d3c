-- The transactional outbox: a service inserts its events here in the same
-- transaction as its state change; the relay publishes them to Kafka.
CREATE TABLE outbox (
    id           bigserial PRIMARY KEY,
    event_id     text        NOT NULL UNIQUE,
    event_type   text        NOT NULL,
    topic        text        NOT NULL,
    msg_key      text        NOT NULL,
    payload      jsonb       NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    published_at timestamptz
);
CREATE INDEX outbox_unpublished ON outbox (id) WHERE published_at IS NULL;
CREATE INDEX outbox_published_at ON outbox (published_at) WHERE published_at IS NOT NULL;
