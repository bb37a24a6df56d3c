CREATE TABLE organizations (
    id         text PRIMARY KEY,
    name       text        NOT NULL,
    plan       text        NOT NULL CHECK (plan IN ('developer', 'growth', 'enterprise')),
    version    bigint      NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
);

-- Plan history, for prorated invoices.
CREATE TABLE plan_periods (
    org_id     text        NOT NULL REFERENCES organizations (id),
    plan       text        NOT NULL,
    started_at timestamptz NOT NULL,
    ended_at   timestamptz,
    PRIMARY KEY (org_id, started_at)
);

-- API keys: only a SHA-256 of the secret and a short display prefix.
CREATE TABLE api_keys (
    id             text PRIMARY KEY,
    org_id         text        NOT NULL REFERENCES organizations (id),
    env            text        NOT NULL CHECK (env IN ('test', 'live')),
    scopes         text[]      NOT NULL,
    name           text        NOT NULL DEFAULT '',
    display_prefix text        NOT NULL,
    secret_hash    bytea       NOT NULL UNIQUE,
    created_at     timestamptz NOT NULL,
    last_used_at   timestamptz,
    revoked_at     timestamptz,
    expires_at     timestamptz,
    replaced_by    text,
    version        bigint      NOT NULL
);
CREATE INDEX api_keys_org ON api_keys (org_id, created_at DESC);

CREATE TABLE users (
    id            text PRIMARY KEY,
    org_id        text        NOT NULL REFERENCES organizations (id),
    email         text        NOT NULL UNIQUE,
    password_hash bytea       NOT NULL,
    created_at    timestamptz NOT NULL
);

CREATE TABLE sessions (
    token_hash bytea PRIMARY KEY,
    user_id    text        NOT NULL REFERENCES users (id),
    org_id     text        NOT NULL,
    csrf_token text        NOT NULL,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL
);
CREATE INDEX sessions_expires ON sessions (expires_at);
