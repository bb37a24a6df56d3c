-- The operations settings of an organization, set by a staff admin (or
-- the operators' admin token): whether live results are held for review
-- before release, and the SLA target that gives each address its dueBy.
ALTER TABLE organizations
    ADD COLUMN review_policy text NOT NULL DEFAULT 'NONE' CHECK (review_policy IN ('NONE', 'FLAGGED', 'ALL')),
    ADD COLUMN sla_hours     int  NOT NULL DEFAULT 72 CHECK (sla_hours BETWEEN 1 AND 720);
