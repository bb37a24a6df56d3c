-- The customers this context knows of, from customer-events: the profile
-- fields a report prints (BVN and NIN only ever masked), kept here as
-- event-carried state, never read from the customer database.
CREATE TABLE customers (
    customer_id     text PRIMARY KEY,
    org_id          text NOT NULL,
    env             text NOT NULL,
    first_name      text NOT NULL DEFAULT '',
    last_name       text NOT NULL DEFAULT '',
    phone           text NOT NULL DEFAULT '',
    email           text NOT NULL DEFAULT '',
    occupation      text NOT NULL DEFAULT '',
    bvn_masked      text NOT NULL DEFAULT '',
    nin_masked      text NOT NULL DEFAULT '',
    passport_number text NOT NULL DEFAULT '',
    loan_id         text NOT NULL DEFAULT '',
    loan_type       text NOT NULL DEFAULT '',
    deleted         boolean NOT NULL DEFAULT false
);

-- One row per rendered version: the newest (highest version) is served.
-- event_id makes rendering idempotent per verification event; code is the
-- public verification code printed on the report.
CREATE TABLE reports (
    id           text PRIMARY KEY,
    customer_id  text NOT NULL REFERENCES customers (customer_id),
    org_id       text NOT NULL,
    env          text NOT NULL,
    version      integer NOT NULL,
    event_id     text NOT NULL UNIQUE,
    status       text NOT NULL,
    object_key   text NOT NULL,
    sha256       text NOT NULL,
    size         bigint NOT NULL,
    code         text NOT NULL UNIQUE,
    generated_at timestamptz NOT NULL,
    UNIQUE (org_id, env, customer_id, version)
);
