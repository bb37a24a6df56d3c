-- The bulk import (issue 29): a job per uploaded file and a row per
-- customer line. A row's creation and its state change commit together,
-- so a job resumed after a crash or restart creates every row once.
CREATE TABLE imports (
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
CREATE INDEX imports_running ON imports (started_at, id) WHERE status = 'RUNNING';

CREATE TABLE import_rows (
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

CREATE INDEX import_rows_pending ON import_rows (import_id, row) WHERE state = 'PENDING';
