-- The outbox table as pkg/outbox/migrations makes it, and outbox_relay with the relay busy.
DROP TABLE IF EXISTS outbox, outbox_relay;
CREATE TABLE outbox (
    id bigserial PRIMARY KEY, event_id text NOT NULL UNIQUE, event_type text NOT NULL, topic text NOT NULL,
    msg_key text NOT NULL, payload jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now(),
    published_at timestamptz, traceparent text NOT NULL DEFAULT '');
CREATE INDEX outbox_unpublished ON outbox (id) WHERE published_at IS NULL;
CREATE INDEX outbox_published_at ON outbox (published_at) WHERE published_at IS NOT NULL;
CREATE TABLE outbox_relay (only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row), idle boolean NOT NULL);
INSERT INTO outbox_relay (idle) VALUES (false);
