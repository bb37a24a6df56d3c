-- A case is a customer as this context needs it (event-carried state from
-- customer-events): who to visit and what to report back. Its status is
-- derived from its jobs by OverallStatus.
CREATE TABLE cases (
    customer_id       text PRIMARY KEY,
    org_id            text        NOT NULL,
    env               text        NOT NULL CHECK (env IN ('test', 'live')),
    first_name        text        NOT NULL,
    last_name         text        NOT NULL,
    phone             text        NOT NULL,
    loan_id           text        NOT NULL DEFAULT '',
    loan_type         text        NOT NULL DEFAULT '',
    -- The customer's documents as the customer context shows them.
    documents         jsonb       NOT NULL DEFAULT '[]',
    status            text        NOT NULL,
    verification_date timestamptz,
    created_at        timestamptz NOT NULL,
    updated_at        timestamptz NOT NULL,
    deleted_at        timestamptz
);

-- A job is the verification of one address.
CREATE TABLE jobs (
    address_id    text PRIMARY KEY,
    customer_id   text        NOT NULL REFERENCES cases (customer_id),
    org_id        text        NOT NULL,
    env           text        NOT NULL,
    position      int         NOT NULL,
    -- The address as submitted (label, streetNumber, ... notes).
    address       jsonb       NOT NULL,
    status        text        NOT NULL,
    sequence      bigint      NOT NULL,
    agent_id      text,
    -- When the sandbox acts next, or a re-visit is due.
    due_at        timestamptz,
    attempts      jsonb       NOT NULL DEFAULT '[]',
    timeline      jsonb       NOT NULL DEFAULT '[]',
    result        jsonb,
    created_at    timestamptz NOT NULL,
    updated_at    timestamptz NOT NULL,
    completed_at  timestamptz,
    UNIQUE (customer_id, position)
);

-- The sandbox worker's queue: open sandbox jobs by due time.
CREATE INDEX jobs_sandbox_due ON jobs (due_at)
    WHERE env = 'test' AND due_at IS NOT NULL AND status IN ('PENDING', 'ASSIGNED', 'IN_PROGRESS');

CREATE TABLE photos (
    id           text PRIMARY KEY,
    address_id   text        NOT NULL REFERENCES jobs (address_id),
    customer_id  text        NOT NULL,
    org_id       text        NOT NULL,
    env          text        NOT NULL,
    tag          text        NOT NULL,
    object_key   text        NOT NULL,
    content_type text        NOT NULL,
    size         bigint      NOT NULL,
    captured_at  timestamptz NOT NULL,
    created_at   timestamptz NOT NULL
);
CREATE INDEX photos_address ON photos (address_id, created_at);

-- Statistics without a scan: live (not deleted) cases per status, and
-- 'ALL'; kept in the transaction of every change.
CREATE TABLE case_counts (
    org_id text   NOT NULL,
    env    text   NOT NULL,
    status text   NOT NULL,
    n      bigint NOT NULL,
    PRIMARY KEY (org_id, env, status)
);

-- Turnaround of cases that reached a final status: sum and count.
CREATE TABLE turnaround (
    org_id  text   NOT NULL,
    env     text   NOT NULL,
    seconds double precision NOT NULL,
    n       bigint NOT NULL,
    PRIMARY KEY (org_id, env)
);
