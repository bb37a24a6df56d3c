-- The trace context of the event that made the message (W3C traceparent,
-- '' when none): every attempt to deliver it is a span of that trace.
ALTER TABLE messages ADD COLUMN traceparent text NOT NULL DEFAULT '';
