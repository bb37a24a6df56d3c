-- report.generated events that came before this service had stored their
-- customer's outcome (verification.completed/rejected, read from another
-- topic, which this service may read behind reporting-events). Parked
-- here in the reporting consumer's transaction, so that consumer goes on
-- with other customers' reports instead of retrying one in place; the
-- verification consumer stages each one's report.ready right after the
-- outcome it waited for, in the transaction that stores that outcome,
-- both under the customer's stage lock.
CREATE TABLE reports_waiting (
    event_id     text PRIMARY KEY,
    org_id       text NOT NULL,
    env          text NOT NULL,
    customer_id  text NOT NULL,
    event_time   timestamptz NOT NULL,
    generated_at timestamptz NOT NULL,
    data         bytea NOT NULL
);
CREATE INDEX reports_waiting_by_customer ON reports_waiting (org_id, env, customer_id);
-- The reporting consumer's sweep of reports that waited too long.
CREATE INDEX reports_waiting_by_age ON reports_waiting (generated_at);
