-- The audit log of what a lender's members and keys did to their
-- organization, from every service, as consumed from the org-audit topic
-- (pkg/orgaudit). id is the event's id, so a redelivered event is stored
-- once. actor_label is the member's email or the key's display prefix as
-- this service knew them when the action arrived (a removed member's
-- email stays readable). Append-only, like staff_audit: a trigger refuses
-- UPDATE, DELETE and TRUNCATE.
CREATE TABLE org_audit (
    id          text PRIMARY KEY,
    org_id      text        NOT NULL,
    env         text        NOT NULL DEFAULT '',
    actor_type  text        NOT NULL CHECK (actor_type IN ('user', 'key')),
    actor_id    text        NOT NULL,
    actor_label text        NOT NULL DEFAULT '',
    actor_role  text        NOT NULL DEFAULT '',
    action      text        NOT NULL,
    target      text        NOT NULL DEFAULT '',
    outcome     text        NOT NULL CHECK (outcome IN ('done', 'refused')),
    details     jsonb       NOT NULL DEFAULT '{}',
    ip          text        NOT NULL DEFAULT '',
    at          timestamptz NOT NULL
);
-- The organization's newest-first listing, and its cursor (at, id).
CREATE INDEX org_audit_org ON org_audit (org_id, at DESC, id DESC);
CREATE INDEX org_audit_actor ON org_audit (org_id, actor_id, at DESC, id DESC);
-- Refusals are rare: without this, "refused only" of an organization with
-- none walks its whole log (172 ms at 200,000 rows; 0.04 ms with it).
CREATE INDEX org_audit_outcome ON org_audit (org_id, outcome, at DESC, id DESC);

CREATE FUNCTION org_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'org_audit is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END
$$;
CREATE TRIGGER org_audit_no_update_delete BEFORE UPDATE OR DELETE ON org_audit
    FOR EACH ROW EXECUTE FUNCTION org_audit_append_only();
CREATE TRIGGER org_audit_no_truncate BEFORE TRUNCATE ON org_audit
    FOR EACH STATEMENT EXECUTE FUNCTION org_audit_append_only();
