-- Endpoints a client registered, per organization and environment. The
-- signing secrets are sealed with the keyring (AES-256-GCM, bound to the
-- endpoint id); the previous secret keeps signing until previous_until.
CREATE TABLE endpoints (
    id              text PRIMARY KEY,
    org_id          text NOT NULL,
    env             text NOT NULL,
    url             text NOT NULL,
    description     text NOT NULL DEFAULT '',
    events          text[] NOT NULL,
    enabled         boolean NOT NULL DEFAULT true,
    disabled_reason text NOT NULL DEFAULT '',
    secret          bytea NOT NULL,
    previous_secret bytea,
    previous_until  timestamptz,
    failing_since   timestamptz,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    deleted_at      timestamptz
);
CREATE INDEX endpoints_by_tenant ON endpoints (org_id, env, created_at, id) WHERE deleted_at IS NULL;

-- One row per event to deliver: the body is rendered once, so every
-- attempt (and every endpoint) gets the same bytes under the same id.
CREATE TABLE messages (
    id         text PRIMARY KEY,
    org_id     text NOT NULL,
    env        text NOT NULL,
    event_type text NOT NULL,
    body       bytea NOT NULL,
    created_at timestamptz NOT NULL
);

-- The schedule: a delivery is due when next_attempt_at has passed (NULL
-- once it succeeded or was exhausted). lease_until marks it in flight on
-- some replica; a lease that runs out (a crashed replica) makes it due
-- again, so nothing is lost across restarts.
CREATE TABLE deliveries (
    id              text PRIMARY KEY,
    endpoint_id     text NOT NULL REFERENCES endpoints (id),
    org_id          text NOT NULL,
    env             text NOT NULL,
    message_id      text NOT NULL REFERENCES messages (id),
    event_type      text NOT NULL,
    status          text NOT NULL,
    attempts        int NOT NULL DEFAULT 0,
    scheduled       int NOT NULL DEFAULT 0,
    manual          boolean NOT NULL DEFAULT false,
    next_attempt_at timestamptz,
    lease_until     timestamptz,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    UNIQUE (endpoint_id, message_id)
);
CREATE INDEX deliveries_due ON deliveries (endpoint_id, next_attempt_at) WHERE next_attempt_at IS NOT NULL;
CREATE INDEX deliveries_in_flight ON deliveries (endpoint_id) WHERE lease_until IS NOT NULL;
CREATE INDEX deliveries_log ON deliveries (org_id, env, endpoint_id, id DESC);

-- Every HTTP call of a delivery, for the delivery log.
CREATE TABLE attempts (
    delivery_id text NOT NULL REFERENCES deliveries (id),
    number      int NOT NULL,
    trigger     text NOT NULL,
    at          timestamptz NOT NULL,
    status_code int NOT NULL,
    latency_ms  bigint NOT NULL,
    response    text NOT NULL,
    error       text NOT NULL,
    succeeded   boolean NOT NULL,
    PRIMARY KEY (delivery_id, number)
);

-- The last transition of each address seen on verification-events, so
-- that verification.completed/rejected deliveries carry each address's
-- sequence and occurredAt (the status event itself does not).
CREATE TABLE address_versions (
    address_id  text PRIMARY KEY,
    org_id      text NOT NULL,
    env         text NOT NULL,
    sequence    bigint NOT NULL,
    occurred_at timestamptz NOT NULL
);
