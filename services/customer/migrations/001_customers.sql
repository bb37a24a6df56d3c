-- Trigram indexes make substring search fast at millions of rows.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE customers (
    id                text PRIMARY KEY,
    org_id            text        NOT NULL,
    env               text        NOT NULL CHECK (env IN ('test', 'live')),
    first_name        text        NOT NULL,
    last_name         text        NOT NULL,
    phone             text        NOT NULL,
    email             text,
    occupation        text,
    -- BVN and NIN: AES-256-GCM ciphertexts naming their key (never clear).
    bvn_enc           bytea,
    nin_enc           bytea,
    passport_number   text,
    loan_id           text,
    loan_type         text,
    relog_reason      text,
    status            text        NOT NULL,
    report_url        text,
    verification_date timestamptz,
    submitted_at      timestamptz NOT NULL,
    created_at        timestamptz NOT NULL,
    updated_at        timestamptz NOT NULL,
    deleted_at        timestamptz,
    -- Folded (lower-case, accent-free) name, email and phone for search.
    search_text       text        NOT NULL
);

-- Newest-first pages, unfiltered and by status.
CREATE INDEX customers_list ON customers (org_id, env, created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX customers_status ON customers (org_id, env, status, created_at DESC, id DESC) WHERE deleted_at IS NULL;
-- Substring search on name/email/phone.
CREATE INDEX customers_search ON customers USING gin (search_text gin_trgm_ops) WHERE deleted_at IS NULL;
-- Phone lookups: equality for duplicates and prefix search.
CREATE INDEX customers_phone ON customers (org_id, env, phone text_pattern_ops) WHERE deleted_at IS NULL;
CREATE INDEX customers_email ON customers (org_id, env, email) WHERE deleted_at IS NULL AND email IS NOT NULL;
CREATE INDEX customers_loan ON customers (org_id, env, loan_id) WHERE deleted_at IS NULL AND loan_id IS NOT NULL;
-- At most one live, non-relogged holder of each identifying value: the
-- database's own guarantee behind the duplicate rule.
CREATE UNIQUE INDEX customers_unique_phone ON customers (org_id, env, phone) WHERE deleted_at IS NULL AND relog_reason IS NULL;
CREATE UNIQUE INDEX customers_unique_email ON customers (org_id, env, email) WHERE deleted_at IS NULL AND relog_reason IS NULL AND email IS NOT NULL;
CREATE UNIQUE INDEX customers_unique_loan ON customers (org_id, env, loan_id) WHERE deleted_at IS NULL AND relog_reason IS NULL AND loan_id IS NOT NULL;

CREATE TABLE addresses (
    id                text PRIMARY KEY,
    customer_id       text        NOT NULL REFERENCES customers (id),
    position          int         NOT NULL,
    label             text        NOT NULL DEFAULT '',
    street_number     text        NOT NULL DEFAULT '',
    street_name       text        NOT NULL,
    landmark          text        NOT NULL DEFAULT '',
    city              text        NOT NULL,
    lga               text        NOT NULL DEFAULT '',
    state             text        NOT NULL,
    country           text        NOT NULL,
    notes             text        NOT NULL DEFAULT '',
    status            text        NOT NULL,
    verification_data jsonb,
    sequence          bigint      NOT NULL DEFAULT 0,
    created_at        timestamptz NOT NULL,
    updated_at        timestamptz NOT NULL,
    UNIQUE (customer_id, position)
);

CREATE TABLE documents (
    id            text PRIMARY KEY,
    customer_id   text        NOT NULL REFERENCES customers (id),
    position      int         NOT NULL,
    document_type text        NOT NULL,
    file_name     text        NOT NULL DEFAULT '',
    file_url      text        NOT NULL DEFAULT '',
    file_type     text        NOT NULL DEFAULT '',
    file_size     bigint      NOT NULL DEFAULT 0,
    verified      boolean     NOT NULL DEFAULT false,
    uploaded_at   timestamptz NOT NULL,
    UNIQUE (customer_id, position)
);

-- Live customers per organization, environment and status ('ALL' is the
-- total), kept in the same transaction as every change: list totals and
-- the plan's record limit read one row instead of counting.
CREATE TABLE customer_counts (
    org_id text   NOT NULL,
    env    text   NOT NULL,
    status text   NOT NULL,
    n      bigint NOT NULL,
    PRIMARY KEY (org_id, env, status)
);
