-- Requests per organization and UTC day, as counted by the gateways.
CREATE TABLE daily_requests (
    org_id   text   NOT NULL,
    day      date   NOT NULL,
    requests bigint NOT NULL,
    PRIMARY KEY (org_id, day)
);

-- One row per billed address: the primary key makes billing idempotent
-- even if two different events report the same address's outcome.
CREATE TABLE billable_verifications (
    address_id       text PRIMARY KEY,
    event_id         text        NOT NULL,
    org_id           text        NOT NULL,
    customer_id      text        NOT NULL,
    outcome          text        NOT NULL,
    plan             text        NOT NULL,
    unit_price_cents bigint      NOT NULL,
    occurred_at      timestamptz NOT NULL,
    recorded_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX billable_verifications_org ON billable_verifications (org_id, occurred_at);
