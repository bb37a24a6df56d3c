-- Event ids a consumer has applied, written in the same transaction as the
-- effect, so that a redelivered event is recognised and skipped.
CREATE TABLE processed_events (
    consumer     text        NOT NULL,
    event_id     text        NOT NULL,
    processed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (consumer, event_id)
);
