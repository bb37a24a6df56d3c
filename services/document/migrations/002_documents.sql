-- The customers this context knows of, from customer-events
-- (customer.created / customer.deleted): its read model, never the
-- customer database. A customer created a moment ago may be missing for
-- the few milliseconds its event takes to arrive.
CREATE TABLE customers (
    customer_id text PRIMARY KEY,
    org_id      text NOT NULL,
    env         text NOT NULL,
    deleted     boolean NOT NULL DEFAULT false
);

-- Documents attached to customers: a link the client hosts (file_url) or
-- a file hosted here (object_key, sizes, sha256).
CREATE TABLE documents (
    id            text PRIMARY KEY,
    customer_id   text NOT NULL REFERENCES customers (customer_id),
    org_id        text NOT NULL,
    env           text NOT NULL,
    document_type text NOT NULL,
    file_name     text NOT NULL,
    file_url      text NOT NULL DEFAULT '',
    file_type     text NOT NULL,
    file_size     bigint NOT NULL,
    verified      boolean NOT NULL DEFAULT false,
    hosted        boolean NOT NULL,
    original_size bigint NOT NULL DEFAULT 0,
    sha256        text NOT NULL DEFAULT '',
    object_key    text NOT NULL DEFAULT '',
    uploaded_at   timestamptz NOT NULL
);

CREATE INDEX documents_by_customer ON documents (org_id, env, customer_id, uploaded_at, id);
