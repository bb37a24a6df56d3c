-- Field agents, managed by operations (admin API, kycctl agents).
CREATE TABLE agents (
    id         text PRIMARY KEY,
    name       text        NOT NULL,
    phone      text        NOT NULL UNIQUE,
    states     text[]      NOT NULL,
    lgas       text[]      NOT NULL DEFAULT '{}',
    active     boolean     NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
);

-- One one-time sign-in code per agent at a time (only its hash).
CREATE TABLE agent_codes (
    agent_id   text PRIMARY KEY REFERENCES agents (id),
    code_hash  bytea       NOT NULL,
    expires_at timestamptz NOT NULL,
    tries      int         NOT NULL DEFAULT 0,
    used_at    timestamptz
);

CREATE TABLE agent_sessions (
    token_hash bytea PRIMARY KEY,
    agent_id   text        NOT NULL REFERENCES agents (id),
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL
);
CREATE INDEX agent_sessions_agent ON agent_sessions (agent_id);

-- Agents retry on bad networks: each mutating call's Idempotency-Key is
-- recorded in the transaction of its effect, so a retry does nothing twice.
CREATE TABLE agent_calls (
    agent_id    text        NOT NULL,
    key         text        NOT NULL,
    fingerprint text        NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (agent_id, key)
);

-- The visit under way: where and when the agent checked in.
ALTER TABLE jobs ADD COLUMN visit jsonb;
CREATE INDEX jobs_agent_open ON jobs (agent_id) WHERE status IN ('ASSIGNED', 'IN_PROGRESS');
CREATE INDEX jobs_live_waiting ON jobs (created_at) WHERE env = 'live' AND status = 'PENDING';

-- A photo's own evidence: the device's position at capture, and the
-- file's EXIF position and time where they survived; the idempotency key
-- an agent stored it with.
ALTER TABLE photos ADD COLUMN device jsonb;
ALTER TABLE photos ADD COLUMN exif jsonb;
ALTER TABLE photos ADD COLUMN idem_key text;
CREATE UNIQUE INDEX photos_idem ON photos (address_id, idem_key) WHERE idem_key IS NOT NULL;
