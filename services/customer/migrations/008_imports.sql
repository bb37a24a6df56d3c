---- tern: disable-tx ----
-- Outside a transaction, so that the index on customers is built
-- CONCURRENTLY (without blocking writes); every statement can run again
-- after a failure.

-- The bulk import (issue 29): a job per uploaded file and a row per
-- customer line. A row's creation and its state change commit together,
-- so a job resumed after a crash or restart creates every row once.
CREATE TABLE IF NOT EXISTS imports (
    id           text PRIMARY KEY,
    org_id       text        NOT NULL,
    env          text        NOT NULL CHECK (env IN ('test', 'live')),
    file_name    text        NOT NULL DEFAULT '',
    -- The same file uploaded again is the same job.
    file_sha256  text        NOT NULL,
    status       text        NOT NULL,
    total_rows   int         NOT NULL,
    valid_rows   int         NOT NULL,
    created_rows int         NOT NULL DEFAULT 0,
    failed_rows  int         NOT NULL DEFAULT 0,
    record_limit int         NOT NULL DEFAULT 0,
    problems     jsonb       NOT NULL DEFAULT '[]',
    created_at   timestamptz NOT NULL,
    started_at   timestamptz,
    finished_at  timestamptz,
    UNIQUE (org_id, env, file_sha256)
);

-- The workers' queue: running jobs, oldest first.
CREATE INDEX IF NOT EXISTS imports_running ON imports (started_at, id) WHERE status = 'RUNNING';

CREATE TABLE IF NOT EXISTS import_rows (
    import_id   text  NOT NULL REFERENCES imports (id),
    row         int   NOT NULL,
    state       text  NOT NULL,
    -- The row's cells as JSON, sealed with the PII keyring (they hold
    -- BVNs and NINs), bound to the job and row.
    cells_enc   bytea NOT NULL,
    customer_id text,
    error       text,
    PRIMARY KEY (import_id, row)
);

CREATE INDEX IF NOT EXISTS import_rows_pending ON import_rows (import_id, row) WHERE state = 'PENDING';

-- The dashboard's 30-day chart of results (GET /api/v1/verification/daily):
-- customers by the day they reached their final status, per tenant.
DROP INDEX CONCURRENTLY IF EXISTS customers_decided;
CREATE INDEX CONCURRENTLY customers_decided ON customers (org_id, env, verification_date)
    WHERE deleted_at IS NULL AND status IN ('VERIFIED', 'REJECTED');
