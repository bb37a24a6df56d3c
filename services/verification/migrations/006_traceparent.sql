-- The trace context of the transaction that created the job (W3C
-- traceparent, '' when none): the sandbox's simulated visit continues
-- that trace, so a sandbox customer's whole life is one trace.
ALTER TABLE jobs ADD COLUMN traceparent text NOT NULL DEFAULT '';
