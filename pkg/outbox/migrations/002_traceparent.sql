-- The trace context of the transaction that wrote the event (W3C
-- traceparent, '' when it had none): the relay publishes the message in
-- that trace, so one trace follows a request through Kafka.
ALTER TABLE outbox ADD COLUMN traceparent text NOT NULL DEFAULT '';
