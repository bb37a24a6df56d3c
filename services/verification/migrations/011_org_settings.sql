-- Each organization's operations settings as auth-billing announces them
-- (organization.* on auth-events): its name for the console, which live
-- results operations review before release, and the SLA target that sets
-- each new live address's due time. version keeps only the newest state.
CREATE TABLE org_settings (
    org_id        text PRIMARY KEY,
    name          text        NOT NULL DEFAULT '',
    review_policy text        NOT NULL DEFAULT 'NONE' CHECK (review_policy IN ('NONE', 'FLAGGED', 'ALL')),
    sla_hours     int         NOT NULL DEFAULT 72 CHECK (sla_hours BETWEEN 1 AND 720),
    version       bigint      NOT NULL,
    updated_at    timestamptz NOT NULL
);
