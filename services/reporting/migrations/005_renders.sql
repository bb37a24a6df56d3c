-- Reports are rendered outside the consumers' transactions: fetching the
-- photos is a call to the verification service, and a consumer's
-- transaction must not wait on another service. A consumer only records
-- what calls for a new version (an outcome, a document added later) here,
-- in its own transaction; a worker renders it, and the version, its
-- report.generated event and the removal of this row commit together.
-- id is the event that called for it: the object key is named after it,
-- so a render retried after a crash overwrites the same object.
CREATE TABLE renders (
    id          text PRIMARY KEY,
    org_id      text NOT NULL,
    env         text NOT NULL,
    customer_id text NOT NULL,
    queued_at   timestamptz NOT NULL DEFAULT now(),
    -- A worker claims a row by moving not_before past now (a lease): a
    -- worker that dies leaves the row to be claimed again.
    not_before  timestamptz NOT NULL DEFAULT now(),
    attempts    integer NOT NULL DEFAULT 0,
    traceparent text NOT NULL DEFAULT ''
);
CREATE INDEX renders_due ON renders (not_before, queued_at);
CREATE INDEX renders_by_customer ON renders (customer_id, queued_at);

-- The newest final outcome of each customer (verification.completed or
-- verification.rejected), kept so that a document added afterwards
-- renders the same outcome again with the document listed.
CREATE TABLE outcomes (
    customer_id text PRIMARY KEY,
    org_id      text NOT NULL,
    env         text NOT NULL,
    outcome     jsonb NOT NULL,
    updated_at  timestamptz NOT NULL
);

-- Documents appended through the document context (document.added), in
-- the order they came: a report lists them with those the outcome names.
CREATE TABLE documents (
    customer_id text NOT NULL,
    document_id text NOT NULL,
    org_id      text NOT NULL,
    env         text NOT NULL,
    document    jsonb NOT NULL,
    added_at    timestamptz NOT NULL,
    PRIMARY KEY (customer_id, document_id)
);
