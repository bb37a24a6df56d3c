-- Our own operations staff (the console at /ops/), separate from lenders'
-- dashboard users: another table, another session store, another cookie.
-- A member is created with an enrolment link; the password and the TOTP
-- secret (sealed with the TOTP keyring, the staff id as associated data)
-- are set when they finish it, so both stay NULL until then.
CREATE TABLE staff (
    id             text PRIMARY KEY,
    email          text        NOT NULL UNIQUE,
    name           text        NOT NULL,
    role           text        NOT NULL CHECK (role IN ('admin', 'dispatcher', 'reviewer')),
    password_hash  bytea,
    totp_secret    bytea,
    totp_last_step bigint      NOT NULL DEFAULT 0,
    disabled_at    timestamptz,
    created_at     timestamptz NOT NULL
);

-- One-time enrolment links: only the token's SHA-256 is kept; used_at
-- makes a link work once; a new link for the same member is a new row.
CREATE TABLE staff_enrolments (
    token_hash bytea PRIMARY KEY,
    staff_id   text        NOT NULL REFERENCES staff (id),
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    used_at    timestamptz
);
CREATE INDEX staff_enrolments_staff ON staff_enrolments (staff_id);

-- Staff sessions (cookie kyc_staff): the token's hash and the CSRF token.
-- Disabling a member deletes their rows, which ends every session at once.
CREATE TABLE staff_sessions (
    token_hash bytea PRIMARY KEY,
    staff_id   text        NOT NULL REFERENCES staff (id),
    csrf_token text        NOT NULL,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL
);
CREATE INDEX staff_sessions_staff ON staff_sessions (staff_id);
CREATE INDEX staff_sessions_expires ON staff_sessions (expires_at);

-- The audit log of every staff action, from every service, as consumed
-- from the staff-audit topic. id is the event's id, so a redelivered event
-- is stored once. Append-only: a trigger refuses UPDATE, DELETE and
-- TRUNCATE, so not even this service's own code can rewrite history.
CREATE TABLE staff_audit (
    id         text PRIMARY KEY,
    actor_id   text        NOT NULL,
    actor_name text        NOT NULL DEFAULT '',
    actor_role text        NOT NULL DEFAULT '',
    action     text        NOT NULL,
    target     text        NOT NULL DEFAULT '',
    org_id     text        NOT NULL DEFAULT '',
    details    jsonb       NOT NULL DEFAULT '{}',
    ip         text        NOT NULL DEFAULT '',
    at         timestamptz NOT NULL
);
CREATE INDEX staff_audit_at ON staff_audit (at DESC, id DESC);
CREATE INDEX staff_audit_actor ON staff_audit (actor_id, at DESC, id DESC);
CREATE INDEX staff_audit_org ON staff_audit (org_id, at DESC, id DESC) WHERE org_id <> '';

CREATE FUNCTION staff_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'staff_audit is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END
$$;
CREATE TRIGGER staff_audit_no_update_delete BEFORE UPDATE OR DELETE ON staff_audit
    FOR EACH ROW EXECUTE FUNCTION staff_audit_append_only();
CREATE TRIGGER staff_audit_no_truncate BEFORE TRUNCATE ON staff_audit
    FOR EACH STATEMENT EXECUTE FUNCTION staff_audit_append_only();
