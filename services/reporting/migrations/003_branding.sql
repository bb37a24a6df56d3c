-- White-labelling (Enterprise plan): what a report shows instead of our
-- branding, per organization and environment like every client row.
-- logo is a PNG the service re-encoded (never the client's bytes).
CREATE TABLE branding (
    org_id       text NOT NULL,
    env          text NOT NULL,
    display_name text NOT NULL,
    accent       text NOT NULL DEFAULT '',
    logo         bytea,
    updated_at   timestamptz NOT NULL,
    PRIMARY KEY (org_id, env)
);

-- Each organization's plan, from auth-events (organization.created,
-- organization.plan_changed): a report shows the branding only while the
-- organization is on Enterprise. version orders the events.
CREATE TABLE organizations (
    org_id  text PRIMARY KEY,
    plan    text NOT NULL,
    version bigint NOT NULL
);
